"""meldcam's outer layer: the command line (and the Flask app, to come).

Imports flow one way: web -> vision -> scorer.
"""
