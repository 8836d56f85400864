"""Keys for any single-valued fact (issue 42, item 1): general subject + attribute + value rules in five
languages, and what never fills a key — a quote, reported speech, a hypothetical, a request, fiction, a
dream, someone else's fact, the past, a negation, a question."""

from __future__ import annotations

import pytest

from engrain.reading.slots import asked_slot, key_of, shown_key, slot_of


@pytest.mark.parametrize(
    ("text", "lang", "key", "value"),
    [
        ("I just got a new phone, a Pixel 8.", "en", "user:phone", "pixel 8"),
        ("My new mobile is an iPhone 15.", "en", "user:phone", "iphone 15"),
        ("I switched gyms to The Gym Group.", "en", "user:gym", "gym group"),
        ("My sister's new car is a Mini Cooper.", "en", "sister:car", "mini cooper"),
        ("Mei's due date is now March 10.", "en", "mei:due date", "march 10"),
        ("My favorite color is green these days.", "en", "user:favourite colour", "green"),
        ("I drive a Kia Niro now.", "en", "user:car", "kia niro"),
        ("We moved into our new house in Bristol last weekend.", "en", "user:home", "bristol"),
        ("Ich habe ein neues Handy, ein Pixel 8.", "de", "user:phone", "pixel 8"),
        ("Meine Lieblingsfarbe ist inzwischen Grün.", "de", "user:favourite colour", "grün"),
        ("Mi nuevo coche es un Toyota Corolla.", "es", "user:car", "toyota corolla"),
        ("Mi color favorito ahora es el verde.", "es", "user:favourite colour", "verde"),
        ("Ma salle de sport est maintenant l'Orange Bleue.", "fr", "user:gym", "orange bleue"),
        ("J'ai un nouveau téléphone, un Pixel 8.", "fr", "user:phone", "pixel 8"),
        ("我的新车是比亚迪汉。", "zh", "user:car", "比亚迪汉"),
        ("我现在最喜欢的颜色是绿色。", "zh", "user:favourite colour", "绿色"),
        ("我把浏览器换成了Firefox。", "zh", "user:browser", "firefox"),
        ("我的电脑是联想小新。", "zh", "user:laptop", "联想小新"),  # 想 in a name is no wish
    ],
)
def test_a_statement_of_one_current_value_fills_its_key(text, lang, key, value):
    slot = slot_of(text, lang)
    assert slot is not None and (slot.key, slot.normalized) == (key, value)
    assert slot.single


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ('He said "my favourite colour is red" and laughed.', "en"),  # a quote
        ("People assume my gym is Equinox because I'm always in Chelsea.", "en"),  # what others assume
        ("Tom thinks I live in Leeds.", "en"),  # reported speech
        ("Imagine my car is a Ferrari and write me a poem about it.", "en"),  # a hypothetical, a request
        ("In the novel I'm writing, my boss is Smaug.", "en"),  # fiction
        ("Pretend I work at Apple and write my bio.", "en"),
        ("My phone is broken.", "en"),  # a state, not a value
        ("My gym is not Equinox.", "en"),  # a negation
        ("My old phone was a Nokia 3310.", "en"),  # the past
        ("Is my bank Monzo?", "en"),  # a question
        ("Stell dir vor, mein Browser ist Firefox.", "de"),
        ("Imagina que mi navegador es Firefox.", "es"),
        ("Imagine que mon navigateur est Firefox.", "fr"),
        ("大家都以为我的健身房是超级猩猩。", "zh"),
        ("如果我的手机是华为就好了。", "zh"),
    ],
)
def test_what_is_not_the_users_own_current_claim_fills_no_key(text, lang):
    assert slot_of(text, lang) is None


def test_someone_elses_fact_has_their_key_not_the_users():
    assert slot_of("My mum's doctor is Dr. Hughes.").key == "mother:doctor"  # type: ignore[union-attr]
    assert slot_of("Le chef de mon mari est Julien.", "fr") is None  # "de mon mari": not "mon mari est…"
    assert slot_of("My friend says her phone is an iPhone 15.") is None
    assert slot_of("My sister is Anna.") is None  # people one has several of are not keys


@pytest.mark.parametrize(
    ("given", "key"),
    [
        ("user · phone", "user:phone"),
        ("Mei · due date", "mei:due date"),
        ("gym", "user:gym"),
        ("me: Favorite Color", "user:favourite colour"),
        ("user/mobile", "user:phone"),
    ],
)
def test_a_models_key_is_read_as_the_rules_name_it(given, key):
    assert key_of(given) == key
    assert shown_key(key).replace(" · ", ":") == key


@pytest.mark.parametrize(
    ("question", "lang", "key"),
    [
        ("what phone do I have", "en", "user:phone"),
        ("what's my favourite colour?", "en", "user:favourite colour"),
        ("which gym do I go to", "en", "user:gym"),
        ("Was ist mein Handy?", "de", "user:phone"),
        ("¿Cuál es mi banco?", "es", "user:bank"),
        ("Quelle est ma banque ?", "fr", "user:bank"),
        ("我开什么车", "zh", "user:car"),
        ("what is my point", "en", None),
    ],
)
def test_a_question_names_the_attribute_it_asks_about(question, lang, key):
    assert asked_slot(question, lang) == key
