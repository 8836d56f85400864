"""The user's profile: who they are, as a model reads it first (engrain://profile, the instructions' summary)."""
