"""Write bench/data/synthetic_locomo.json: long-conversation samples in the LoCoMo layout.

Made here, deterministic (seeded). Each sample is two speakers chatting over sixteen dated
sessions of thirty turns. Facts about each speaker are woven into small talk that
keeps touching the same topics without answering anything (both speakers have pets,
jobs, siblings and trips; the pet's name, the new city and the trip come up again and
again), and other turns mention times ("yesterday", "last week") about nothing in
particular. Questions name the speaker, ask "when did…", paraphrase what was said, need
two turns (multi-hop), or ask about the wrong speaker (adversarial). Categories follow
LoCoMo's numbering: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.

    python bench/make_synthetic.py              # English: bench/data/synthetic_locomo.json
    python bench/make_synthetic.py --lang zh    # Chinese: bench/data/synthetic_locomo_zh.json

The Chinese set (`bench/synthetic_zh.py`) has the same structure in colloquial Mandarin, with the
speakers' and pets' names in Latin letters inside Chinese text, as in translated or bilingual chat.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

DATA = Path(__file__).parent / "data"
SESSIONS = 16
TURNS = 30

FILLER = [
    "Haha, that sounds like quite a week!",
    "Oh nice, tell me more about it.",
    "I know what you mean.",
    "That's so cool, I'm happy for you.",
    "Anyway, how have you been lately?",
    "Same here, it's been busy.",
    "Wow, I didn't expect that.",
    "Thanks for asking, I appreciate it.",
    "Let's catch up again soon!",
    "Sounds good to me.",
    "Yeah, the weather has been strange too.",
    "I totally agree with you there.",
    "That must have been a lot to handle.",
    "You always find the bright side of things.",
    "Ha, classic!",
    "No way, really?",
    "I can't believe how fast this year is going.",
    "That reminds me of something funny.",
    "Good for you, seriously.",
    "I've been meaning to ask you about that.",
    "Okay, that made me laugh.",
    "I hope things calm down for you soon.",
    "You should write a book about your life.",
    "Fair enough!",
    "I'll keep my fingers crossed.",
    "Let me know how it goes.",
    "It's been ages since we talked like this.",
    "I'm a bit tired today, sorry if I'm slow to answer.",
    "That's a good point.",
    "Same old, same old.",
]
# Turns that mention a time but answer no question, composed so that they rarely repeat.
TIMES = [
    "Yesterday",
    "Last week",
    "This morning",
    "Two days ago",
    "Last weekend",
    "On Sunday",
    "Last night",
    "A few days ago",
    "Earlier today",
    "Last month",
]
ACTIVITIES = [
    "I cleaned the whole kitchen",
    "I binge-watched a crime series",
    "I went to the farmers market",
    "I fixed the leaking tap",
    "I ran into an old classmate",
    "I tried a new bakery downtown",
    "I got caught in the rain",
    "I reorganized my closet",
    "I went to a birthday party",
    "I finally called the bank",
    "I painted the hallway",
    "I helped a neighbour move a sofa",
    "I baked banana bread",
    "I visited a small museum",
    "I spent hours on a jigsaw puzzle",
    "I went to the dentist",
    "I slept until noon",
    "I rearranged the living room",
    "I went to a pub quiz",
    "I walked along the river",
]
COMMENTS = [
    "",
    ", it was nice",
    ", what a day",
    ", honestly exhausting",
    ", so relaxing",
    ", not my best idea",
    ", I needed that",
]
PET_ACTIONS = [
    "knocked a glass off the table",
    "learned a new trick",
    "ate half my sandwich",
    "hid under the bed",
    "woke me up at 5",
    "met the neighbour's kids",
    "chewed a charging cable",
    "was extra cuddly",
    "stole a sock",
    "sat in the sun for hours",
]
PET_WHEN = ["yesterday", "last night", "this morning", "again today", "on Sunday"]
# Topic small talk that answers nothing: {pet}, {pet_name}, {city}, {trip}, {sib}, {food} filled in.
TOPICAL = [
    "{pet_name} chewed through another charging cable, I can't stay mad at that face though.",
    "My neighbour's {pet} got out again and I had to chase it down the street.",
    "Do you think a {pet} gets lonely when I'm at work all day?",
    "{pet_name} has been sleeping on my laptop keyboard, it's hilarious.",
    "Work has been hectic, so many meetings this week.",
    "My manager keeps asking for reports on short notice.",
    "I'm thinking about asking for a raise, wish me luck.",
    "There's a new coworker who talks nonstop.",
    "{city} has amazing food trucks on every corner.",
    "The traffic in {city} is worse than I expected.",
    "Still unpacking boxes, it never ends.",
    "I finally found a decent coffee place near the new apartment.",
    "I've been reading about {trip}, the photos are stunning.",
    "Flights are so expensive this season.",
    "My {sibling_word} {sib} called me for advice about money, of all things.",
    "Family dinners are chaotic but I love them.",
    "I tried a new {food} recipe but it came out bland.",
    "Cooking every day is exhausting, I ordered pizza instead.",
    "I listened to a great jazz album today.",
    "I want to pick up a new hobby, maybe something creative.",
    "Do you ever go to live concerts?",
    "My car made a weird noise on the highway, so I took it to a mechanic.",
    "I should really read more, my pile of unread books keeps growing.",
    "I'm trying to eat healthier, fewer snacks and more vegetables.",
    # The entities of the facts again, with times, answering nothing.
    "{pet_name} learned a new trick yesterday, I was so proud.",
    "Last week {pet_name} ate half my sandwich!",
    "I took {pet_name} to the park this morning, it was packed.",
    "I drove the new car to the coast last weekend.",
    "Two weeks ago I cleaned the whole car, it already looks dirty again.",
    "My {sibling_word} {sib} visited last month and we cooked {food} together.",
    "Yesterday I walked around {city} for hours, it's growing on me.",
    "A friend of mine went to {trip} last year and loved it.",
    "Last night I practised for an hour, my neighbours must hate me.",
    "I started a new book yesterday, the first chapter is slow.",
]

PEOPLE = [
    # name, pet kind, pet name, job, hobby, city, sibling, sibling job, trip, food, instrument, car, allergy, book
    (
        "Alice",
        "dog",
        "Biscuit",
        "veterinary nurse",
        "rock climbing",
        "Denver",
        "Tom",
        "firefighter",
        "Iceland",
        "ramen",
        "cello",
        "Subaru",
        "peanuts",
        "The Overstory",
    ),
    (
        "Bruno",
        "cat",
        "Pixel",
        "bakery owner",
        "chess",
        "Lisbon",
        "Marta",
        "pharmacist",
        "Japan",
        "paella",
        "trumpet",
        "Vespa",
        "shellfish",
        "Dune",
    ),
    (
        "Chen",
        "parrot",
        "Mango",
        "software tester",
        "marathon running",
        "Vancouver",
        "Li",
        "architect",
        "Peru",
        "dumplings",
        "violin",
        "Prius",
        "gluten",
        "Educated",
    ),
    (
        "Dana",
        "rabbit",
        "Clover",
        "high school teacher",
        "pottery",
        "Austin",
        "Sam",
        "pilot",
        "Morocco",
        "tacos",
        "drums",
        "pickup truck",
        "cats",
        "Circe",
    ),
    (
        "Emeka",
        "tortoise",
        "Sheldon",
        "civil engineer",
        "photography",
        "Toronto",
        "Ada",
        "nurse",
        "Norway",
        "jollof rice",
        "saxophone",
        "Corolla",
        "dairy",
        "Americanah",
    ),
    (
        "Freya",
        "horse",
        "Storm",
        "marine biologist",
        "sailing",
        "Bergen",
        "Nils",
        "chef",
        "Chile",
        "salmon",
        "piano",
        "Volvo",
        "pollen",
        "Beloved",
    ),
    (
        "Gus",
        "ferret",
        "Noodle",
        "electrician",
        "birdwatching",
        "Portland",
        "June",
        "dentist",
        "Vietnam",
        "pho",
        "banjo",
        "minivan",
        "bee stings",
        "Shogun",
    ),
    (
        "Hana",
        "hamster",
        "Mochi",
        "graphic designer",
        "trail running",
        "Melbourne",
        "Kenji",
        "lawyer",
        "Greece",
        "sushi",
        "flute",
        "Mini Cooper",
        "sesame",
        "Piranesi",
    ),
]
BROTHERS = {"Tom", "Sam", "Nils", "Li", "Kenji"}


def fmt(dt: datetime) -> str:
    hour = dt.strftime("%I").lstrip("0")
    return f"{hour}:{dt.strftime('%M')} {dt.strftime('%p').lower()} on {dt.day} {dt.strftime('%B')}, {dt.year}"


def facts(p: tuple) -> list[tuple[int, str, str]]:
    """(session index, key, text) of what a speaker tells about themselves."""
    _, pet, pet_name, job, hobby, city, sib, sib_job, trip, food, instrument, car, allergy, book = p
    sibling = (
        f"My brother {sib} just got a job as a {sib_job}, the whole family is proud."
        if sib in BROTHERS
        else f"My sister {sib} just became a {sib_job}, we are so proud."
    )
    return [
        (0, "pet", f"We finally adopted a {pet} last weekend, we named it {pet_name}!"),
        (1, "job", f"Being a {job} keeps me on my toes, no two days are alike."),
        (2, "hobby", f"I spent the whole Saturday {hobby} with some friends, exhausting but fun."),
        (4, "move", f"Big news: I moved to {city} yesterday, the apartment is still full of boxes."),
        (5, "sibling", sibling),
        (6, "trip", f"I'm planning a two-week trip to {trip} next month, I already booked the flights."),
        (7, "car", f"Two days ago I sold my old car and bought a used {car}."),
        (8, "pet_vet", f"{pet_name} had to go to the vet today, nothing serious, just a small infection."),
        (9, "food", f"I cooked {food} for dinner again, it's honestly my favourite thing to eat."),
        (10, "allergy", f"Turns out I'm allergic to {allergy}, the doctor told me to stay well away from them."),
        (11, "instrument", f"I started taking {instrument} lessons, my teacher says I'm making progress."),
        (13, "trip_back", f"I'm back from {trip}! The landscapes were unbelievable."),
        (15, "book", f"I just finished '{book}', I couldn't put it down."),
    ]


def asker(name: str, turns: dict[str, str]) -> Callable[..., dict]:
    """q(question, answer, keys, category): a LoCoMo question whose evidence is `name`'s turns of those keys."""

    def q(question: str, answer: str, keys: list[str], category: int) -> dict:
        return {
            "question": question,
            "answer": answer,
            "evidence": [turns[f"{name}:{k}"] for k in keys],
            "category": category,
        }

    return q


def questions(p: tuple, other: tuple, t: dict[str, str]) -> list[dict]:
    name, pet, pet_name, job, _, city, _, sib_job, trip, food, instrument, car, _, book = p

    q = asker(name, t)

    return [
        q(f"What is the name of {name}'s pet?", pet_name, ["pet"], 4),
        q(f"What does {name} do for a living?", job, ["job"], 4),
        q(f"Which instrument is {name} learning to play?", instrument, ["instrument"], 4),
        q(f"What vehicle does {name} drive now?", car, ["car"], 4),
        q(f"Which novel did {name} read recently?", book, ["book"], 4),
        q(f"When did {name} relocate to {city}?", "the day before the fifth session", ["move"], 2),
        q(f"When did {name} get {pet_name}?", "the weekend before the first session", ["pet"], 2),
        q(f"When is {name} going to {trip}?", "the month after the seventh session", ["trip"], 2),
        q(f"When did {name} purchase their current car?", "two days before the eighth session", ["car"], 2),
        q(f"Why did {name}'s {pet} need medical care?", "a small infection", ["pet_vet", "pet"], 1),
        q(f"What did {name} think of the country they visited?", "unbelievable landscapes", ["trip_back", "trip"], 1),
        q(f"What profession did {name}'s sibling start?", sib_job, ["sibling"], 1),
        q(f"Would {name} be up for a tiring day out with friends?", "yes", ["hobby"], 3),
        q(f"What could you make for {name} to put them in a good mood?", food, ["food"], 3),
        q(f"Should a host be careful about {name}'s diet?", "yes", ["allergy"], 3),
        q(f"What is the name of {other[0]}'s {pet}?", "not mentioned", ["pet"], 5),
        q(f"When did {other[0]} move to {city}?", "not mentioned", ["move"], 5),
        q(f"What does {other[0]} think of {instrument} lessons?", "not mentioned", ["instrument"], 5),
    ]


@dataclass(frozen=True)
class Corpus:
    """A language's lines, people, facts and questions; `sample` weaves them into conversations."""

    filler: list[str]
    times: list[str]
    activities: list[str]
    comments: list[str]
    pet_actions: list[str]
    pet_when: list[str]
    topical: list[str]
    people: list[tuple]
    brothers: set[str]
    facts: Callable[[tuple], list[tuple[int, str, str]]]
    questions: Callable[[tuple, tuple, dict[str, str]], list[dict]]
    fmt: Callable[[datetime], str]
    episode: Callable[[str, str, str], str]  # time, activity, comment → a line
    pet_line: Callable[[str, str, str], str]  # pet name, action, when → a line
    sibling_words: tuple[str, str]  # brother, sister
    out: str


ENGLISH = Corpus(
    FILLER,
    TIMES,
    ACTIVITIES,
    COMMENTS,
    PET_ACTIONS,
    PET_WHEN,
    TOPICAL,
    PEOPLE,
    BROTHERS,
    facts,
    questions,
    fmt,
    lambda when, what, comment: f"{when} {what}{comment}.",
    lambda name, action, when: f"{name} {action} {when}.",
    ("brother", "sister"),
    "synthetic_locomo.json",
)


def sample(idx: int, a: tuple, b: tuple, rng: random.Random, corpus: Corpus = ENGLISH) -> dict:
    start = datetime(2023, 1 + idx, 3 + idx, 14, 5)
    dates = [start + timedelta(days=9 * s + rng.randint(0, 3)) for s in range(SESSIONS)]
    conv: dict = {"speaker_a": a[0], "speaker_b": b[0]}
    turns: dict[str, str] = {}
    told = {a[0]: corpus.facts(a), b[0]: corpus.facts(b)}

    said: set[tuple[str, str]] = set()
    # Each speaker tells each everyday episode once (in their own order), as people do.
    episodes = {who[0]: rng.sample(corpus.activities, len(corpus.activities)) for who in (a, b)}

    def small_talk(who: tuple) -> str:
        """A line of small talk, preferably one this speaker has not said yet (people seldom repeat
        themselves word for word)."""
        _, pet, pet_name, _, _, city, sib, _, trip, food, *_ = who
        for _attempt in range(20):
            roll = rng.random()
            if roll < 0.2 and episodes[who[0]]:
                line = corpus.episode(rng.choice(corpus.times), episodes[who[0]].pop(), rng.choice(corpus.comments))
            elif roll < 0.3:
                line = corpus.pet_line(pet_name, rng.choice(corpus.pet_actions), rng.choice(corpus.pet_when))
            else:
                pool = corpus.filler if roll < 0.55 else corpus.topical
                brother, sister = corpus.sibling_words
                line = rng.choice(pool).format(
                    pet=pet,
                    pet_name=pet_name,
                    city=city,
                    trip=trip,
                    food=food,
                    sib=sib,
                    sibling_word=brother if sib in corpus.brothers else sister,
                )
            if (who[0], line) not in said:
                break
        said.add((who[0], line))
        return line

    for s, when in enumerate(dates, start=1):
        conv[f"session_{s}_date_time"] = corpus.fmt(when)
        script = [(who, key, text) for who in (a, b) for sess, key, text in told[who[0]] if sess == s - 1]
        rng.shuffle(script)
        slots = sorted(rng.sample(range(TURNS), len(script)))
        session = []
        for turn in range(TURNS):
            speaker = (a, b)[turn % 2]
            key, text = None, None
            if script and slots and slots[0] == turn:
                slots.pop(0)
                speaker, key, text = script.pop(0)
            dia = f"D{s}:{turn + 1}"
            session.append({"speaker": speaker[0], "dia_id": dia, "text": text or small_talk(speaker)})
            if key:
                turns[f"{speaker[0]}:{key}"] = dia
        conv[f"session_{s}"] = session

    # Adversarial questions ask about the other speaker; their evidence is the turn of the speaker who did
    # say it (what a reader needs in order to notice the mix-up).
    qa = corpus.questions(a, b, turns) + corpus.questions(b, a, turns)
    return {"sample_id": f"synthetic-{idx}", "conversation": conv, "qa": qa}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    args = parser.parse_args()
    corpus = ENGLISH
    if args.lang == "zh":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from bench.synthetic_zh import CHINESE

        corpus = CHINESE
    rng = random.Random(7)
    people = corpus.people
    samples = [sample(i, people[2 * i], people[2 * i + 1], rng, corpus) for i in range(len(people) // 2)]
    out = DATA / corpus.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(samples)} samples, {sum(len(s['qa']) for s in samples)} questions")


if __name__ == "__main__":
    main()
