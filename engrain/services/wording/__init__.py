"""How memories are worded for a model, and how a model names them back.

`lines`: one line per memory or trait in a tool's text — date, marks, whole words quoted as data, short
id. `short_ids`: the short id a text shows is accepted back by every tool and resource that takes an id.
Below the domain packages: memories, recall and traits use it, it uses none of them.
"""
