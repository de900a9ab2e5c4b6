"""Vision: frames to observations to moves (see DESIGN.md)."""
