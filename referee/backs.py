"""Back registration for the service: a photo of one card back → the table's
:class:`vision.backs_registry.BackDesigns` registry (kept with the table and written beside
its profile as ``<profile>.backs.json`` when a vision source runs), and the seat's ``back``
in the table profile."""

from __future__ import annotations

import tomllib
from typing import Any

import cv2
import numpy as np

__all__ = ["BackPhotoError", "card_region", "register_back"]


class BackPhotoError(ValueError):
    """A photo that cannot be registered as a back design; one line says why."""


def card_region(image: np.ndarray) -> tuple[int, int, int, int]:
    """The box of the card in a photo of one card back: the largest outer contour of the
    edges that fills a fair part of the photo, else the central 60 %."""
    h, w = image.shape[:2]
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    edges = cv2.dilate(cv2.Canny(grey, 40, 120), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = max(contours, key=cv2.contourArea, default=None)
    if best is not None:
        x, y, bw, bh = cv2.boundingRect(best)
        if 0.15 * w * h <= bw * bh <= 0.95 * w * h:
            return x, y, x + bw, y + bh
    return int(0.2 * w), int(0.2 * h), int(0.8 * w), int(0.8 * h)


def register_back(backs: dict[str, Any], profile_toml: str, seat: int, design_id: str,
                  photo: bytes) -> tuple[dict[str, Any], str]:
    """Add a seat's back design from a photo (JPEG or PNG bytes); returns the table's new
    ``backs`` (with ``registry``: :meth:`BackDesigns.to_dict`) and profile TOML (the seat's
    ``back`` set; unchanged when the table has no profile yet)."""
    from vision.backs_registry import BackDesigns, local_white
    from vision.profile import TableProfile

    image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise BackPhotoError("the back photo is not a readable JPEG or PNG image")
    if min(image.shape[:2]) < 24:
        raise BackPhotoError("the back photo is too small (under 24 pixels)")
    x1, y1, x2, y2 = card_region(image)
    crop = image[y1:y2, x1:x2]
    try:
        registry = (BackDesigns.from_dict(backs["registry"]) if backs.get("registry")
                    else BackDesigns())
    except (ValueError, KeyError, TypeError):
        registry = BackDesigns()  # an older registry: registered again from here on
    registry.designs.pop(design_id, None)  # a new photo replaces the seat's design
    registry.register(design_id, [crop], whites=[local_white(image, (x1, y1, x2, y2))])
    out = {**backs, str(seat): {**backs.get(str(seat), {}), "design": design_id},
           "registry": registry.to_dict()}
    if profile_toml.strip():
        try:
            profile = TableProfile.from_dict(tomllib.loads(profile_toml))
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            raise BackPhotoError(f"the table's profile cannot be read: {exc}") from None
        if seat < len(profile.seats):
            profile.seats[seat].back = design_id
            profile_toml = profile.to_toml()
    return out, profile_toml
