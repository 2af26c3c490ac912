"""Training data for meldcam's detector: synthetic table photos and importers for real sets.

``meldcam synth`` renders phone-like photos of Burraco / Burako / tile Rummy tables with YOLO
labels in one of the schemes of :mod:`vision.classes`, a JSON ground truth per image (pieces,
boxes, melds, sides) and optional classifier crops; ``meldcam import-real`` converts the real
labelled photos in ``shared/realdata`` to the same schemes.
"""
