"""Synthetic table scenes: card artwork, back designs and still overhead renders."""
