"""bench/chat_messages.py (issue 43's measure): of 201 hand-labelled chat messages, what an import keeps is
about the user (precision ≥ 0.9) and what is about the user is kept (recall ≥ 0.9), on the held-out split."""

from bench.chat_messages import measure


def test_an_import_keeps_what_is_about_the_user_on_the_held_out_messages():
    out = measure()
    assert out["test"]["messages"] >= 60 and out["dev"]["messages"] + out["test"]["messages"] >= 200
    assert out["test"]["precision"] >= 0.9 and out["test"]["recall"] >= 0.9, out["test"]
