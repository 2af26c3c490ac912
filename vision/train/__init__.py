"""Training of meldcam's models (needs the ``[train]`` extra: torch, ultralytics).

Nothing here is imported when serving: ``vision.scan`` uses onnxruntime only.
"""
