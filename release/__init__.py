"""release package."""
