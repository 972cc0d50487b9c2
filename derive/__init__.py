"""derive package."""
