"""OpenCV's own answers for the Scenes unit tests (run with .oracle-venv's python).

scene_oracle.py PATH W H: PATH holds W*H BGR pixels; prints JSON with OpenCV's 8-bit HSV
planes (cv2.cvtColor), PySceneDetect's perceptual hash of that picture, and the edge map its
content detector draws from the value plane (Canny, then dilated), flattened.
"""
import json, sys

import cv2
import numpy
from scenedetect.detectors.content_detector import ContentDetector
from scenedetect.detectors.hash_detector import HashDetector

path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bgr = numpy.fromfile(path, dtype=numpy.uint8).reshape(h, w, 3)
hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
digest = HashDetector.hash_frame(bgr, 16, 2)
edges = ContentDetector()._detect_edges(hsv[:, :, 2])
print(json.dumps({
    "h": hsv[:, :, 0].flatten().tolist(),
    "s": hsv[:, :, 1].flatten().tolist(),
    "v": hsv[:, :, 2].flatten().tolist(),
    "hash": [bool(b) for b in digest.flatten()],
    "edges": edges.flatten().tolist(),
}))
