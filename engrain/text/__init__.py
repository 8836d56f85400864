"""Text analysis shared by storage and services: which language a text is in, and the form its
words take in the full-text index (segmented for Chinese, Japanese and Korean)."""
