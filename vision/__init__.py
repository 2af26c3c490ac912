"""Recognition: the detector's class scheme (classes.py) and, later, the detector itself."""
