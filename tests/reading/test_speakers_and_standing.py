"""Who spoke a turn, whether a question asks what the assistant said or what the user told, which statements are
standing instructions or preferences, and which questions want the order of things (issue 51)."""

from __future__ import annotations

import pytest

from engrain.reading.asks import asks_in_time, asks_to_gather, asks_what_user_told
from engrain.reading.speakers import asks_about_user, asks_assistant, spoken_by, words_of
from engrain.reading.standing import standing_of


@pytest.mark.parametrize(
    "turn, role",
    [
        ("Assistant: You should try a lumbar cushion.", "assistant"),
        ("ChatGPT： 好的", "assistant"),
        ("User: I moved to Lisbon.", "user"),
        ("Me: sounds good", "user"),
        ("Caroline: I went to a support group yesterday.", None),  # a person's name says nothing
        ("I said: no way", None),
    ],
)
def test_a_leading_name_says_who_spoke(turn, role):
    assert spoken_by(turn) == role


@pytest.mark.parametrize(
    "question, asks",
    [
        ("What did you recommend for my back pain?", True),
        ("Remind me of the code you wrote for the parser", True),
        ("你之前推荐的书是哪本？", True),
        ("Was hast du mir empfohlen?", True),
        ("¿Qué me recomendaste para dormir?", True),
        ("Qu'est-ce que tu m'as conseillé ?", True),
        ("What do you suggest for my back?", False),  # a request for something new
        ("Can you give me a summary of my project?", False),
        ("What did I say about my dog?", False),
    ],
)
def test_a_question_about_what_the_assistant_said(question, asks):
    assert asks_assistant(question) is asks


@pytest.mark.parametrize(
    "question, about_user",
    [
        ("What are my hobbies?", True),
        ("Where do I live now?", True),
        ("我的爱好是什么？", True),
        ("Was sind meine Hobbys?", True),
        ("¿Cuáles son mis aficiones?", True),
        ("Quels sont mes loisirs ?", True),
        ("Qu'est-ce que j'aime faire le week-end ?", True),
        ("What did we discuss about the trip?", False),  # the two of them: the assistant's words answer it too
        ("我们上次聊了什么？", False),
        ("Tell me about the borrow checker", False),  # a request, not a question about the user
        ("Where does Ken live?", False),
        ("Im Mai", False),
    ],
)
def test_a_question_the_user_asks_about_themselves(question, about_user):
    assert asks_about_user(question) is about_user


@pytest.mark.parametrize(
    "statement, standing",
    [
        ("Always provide a code example when I ask about async error handling.", "instruction"),
        ("Use metric units", "instruction"),
        ("From now on, answer in French.", "instruction"),
        ("以后回答都用中文", "instruction"),
        ("Ab jetzt bitte immer auf Deutsch antworten.", "instruction"),
        ("A partir de ahora, respóndeme en inglés.", "instruction"),
        ("Désormais, réponds en anglais.", "instruction"),
        ("I prefer short answers.", "preference"),
        ("Ich bevorzuge kurze Antworten.", "preference"),
        ("I always go running on Sundays.", None),  # a habit: what the user does
        ("I never eat meat.", None),
        ("Use this code to fix the bug.", None),  # a request of the moment
    ],
)
def test_standing_instructions_and_preferences(statement, standing):
    assert standing_of(statement) == standing


def test_a_turn_that_names_its_speaker_is_read_without_the_name():
    assert words_of("User: Always answer in TypeScript.") == "Always answer in TypeScript."
    assert standing_of(words_of("User: Always answer in TypeScript.")) == "instruction"
    assert words_of("Caroline: hi") == "Caroline: hi"


@pytest.mark.parametrize(
    "question, in_time",
    [
        ("Which did I do first, the marathon or the move?", True),
        ("Can you walk me through the order in which I brought up the features?", True),
        ("What have I told you about my project?", True),
        ("Give me a summary of my resume analyzer work.", True),
        ("我做这些事情的先后顺序是什么？", True),
        ("Where do I live?", False),
    ],
)
def test_a_question_that_wants_things_in_time(question, in_time):
    assert asks_in_time(question) is in_time


@pytest.mark.parametrize(
    "question, gathers",
    [
        ("What books has Tim read?", True),
        ("What activities does Deborah pursue besides yoga?", True),
        ("How many tournaments has Nate played in?", True),
        ("What kinds of music do I like?", True),
        ("Give me a summary of my resume analyzer work.", True),
        ("我去过哪些国家？", True),
        ("Wie viele Bücher habe ich gelesen?", True),
        ("Quels livres ai-je lus ?", True),
        ("Where does Ines live?", False),
        ("What class does she teach?", False),  # a word ending in -ss is no plural
        ("How much did the bike cost?", False),
        ("How many days do I have between the launch and the review?", False),  # two dates, not a list
        ("What approaches would you suggest for caching?", False),  # advice, not memories
        ("How do I improve my resume?", False),  # English, not Spanish "resumen"
        ("How many entries and ratings did I say my dataset includes at the start?", False),  # a number told once
        ("How many different Twitter API tasks have I mentioned across my sessions?", True),
        ("How many relatives did I say were sharing the funeral expenses across all my messages?", True),
    ],
)
def test_a_question_that_gathers(question, gathers):
    assert asks_to_gather(question) is gathers


@pytest.mark.parametrize(
    "question, told",
    [
        ("What did I say about my TypeScript project?", True),
        ("How old was I when I moved to Lisbon?", True),
        ("What city did I say I work in?", True),
        ("我之前说过我住在哪里？", True),
        ("Was habe ich dir über meinen Hund erzählt?", True),
        ("¿Qué te dije sobre mi perro?", True),
        ("Qu'est-ce que j'ai dit sur mon chien ?", True),
        ("How do I read a file line by line?", False),  # a request: the user's instructions bear on it
        ("Can you show me an example of a closure?", False),
        ("Which database does my team use now?", False),
    ],
)
def test_a_question_about_what_the_user_told(question, told):
    assert asks_what_user_told(question) is told
