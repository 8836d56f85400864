"""Reading a text: the pure rules that turn what a user wrote into a memory's kind, temporality, date,
category and mood, in every supported language, and the checks every client input passes (`inputs`).

A leaf layer beside `text/`: no database, no model, no service; it imports nothing of engrain above it.
"""
