"""A long memory's windows (engrain/text/windows.py): consecutive runs of its sentences and lines, each within the
window's length, covering the text in order, none for a short memory."""

from __future__ import annotations

from engrain.text.windows import CJK_WINDOW_CHARS, MAX_WINDOWS, WINDOW_CHARS, WINDOWED_CHARS, windows

OPENING = "I'm deploying my React frontend on Render with Docker, aiming for an initial deployment by March 1, 2024."
CODE = "\n".join(f"RUN npm run build --workspace=packages/app-{n} && cp -r dist /srv/app-{n}" for n in range(30))


def test_a_short_memory_has_no_windows():
    assert windows("I moved to Lisbon in May.") == []
    assert windows("x " * (WINDOWED_CHARS // 2)) == []


def test_windows_cover_the_text_in_order_within_their_length():
    content = f"{OPENING} Can you check my Dockerfile?\n```\n{CODE}\n```\nThanks, it keeps failing on the copy step."
    found = windows(content)
    assert len(found) > 2
    assert all(0 < len(w) <= WINDOW_CHARS for w in found)
    assert found[0].startswith(OPENING)  # the answer's sentence stays whole, with its neighbours
    assert " ".join(found).split() == content.split()  # nothing dropped, nothing reordered


def test_a_sentence_longer_than_a_window_is_cut_at_spaces():
    sentence = " ".join(f"word{n}" for n in range(300))
    found = windows(sentence)
    assert all(len(w) <= WINDOW_CHARS for w in found)
    assert " ".join(found).split() == sentence.split()


def test_a_very_long_text_keeps_its_first_windows():
    content = " ".join(f"Sentence number {n} of a pasted document." for n in range(1000))
    found = windows(content)
    assert len(found) == MAX_WINDOWS
    assert found[0].startswith("Sentence number 0 ")


def test_a_chinese_text_has_shorter_windows():
    """A CJK character is about a token: 480 of them would pass the model's 256-token cut."""
    content = "我上个月开始学习做面包，每个周末都会烤一次全麦面包。" * 30
    found = windows(content)
    assert len(found) > 1
    assert all(len(w) <= CJK_WINDOW_CHARS for w in found)
    assert "".join(found).replace(" ", "") == content
