"""corpus_tree package."""
