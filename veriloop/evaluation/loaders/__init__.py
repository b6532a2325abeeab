"""Loaders from the datasets' original file formats into `Item`s."""
