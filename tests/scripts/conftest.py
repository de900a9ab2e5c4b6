"""The vision tests' card cache fixture serves the script tests too."""

from ..vision.conftest import card_cache  # noqa: F401
