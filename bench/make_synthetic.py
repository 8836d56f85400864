"""Write bench/data/synthetic_locomo.json: small long-conversation samples in the LoCoMo layout.

Made here, deterministic (seeded). Each sample is two speakers over several dated sessions of
chit-chat with facts woven in; the questions name people, ask "when did…", paraphrase what was
said, include two-turn (multi-hop) questions and adversarial ones about the wrong speaker.
Categories follow LoCoMo's numbering: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial.

    python bench/make_synthetic.py
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

OUT = Path(__file__).parent / "data" / "synthetic_locomo.json"

FILLER = [
    "Haha, that sounds like quite a week!", "Oh nice, tell me more about it.", "I know what you mean.",
    "That's so cool, I'm happy for you.", "Anyway, how have you been lately?", "Same here, it's been busy.",
    "Wow, I didn't expect that.", "Thanks for asking, I appreciate it.", "Let's catch up again soon!",
    "Sounds good to me.", "Yeah, the weather has been strange too.", "I totally agree with you there.",
]

PEOPLE = [
    # (name, pet kind, pet name, job, hobby, city moved to, sibling, sibling job, trip destination, food, instrument)
    ("Alice", "dog", "Biscuit", "veterinary nurse", "rock climbing", "Denver", "Tom", "firefighter", "Iceland",
     "ramen", "cello"),
    ("Bruno", "cat", "Pixel", "bakery owner", "chess", "Lisbon", "Marta", "pharmacist", "Japan", "paella",
     "trumpet"),
    ("Chen", "parrot", "Mango", "software tester", "marathon running", "Vancouver", "Li", "architect", "Peru",
     "dumplings", "violin"),
    ("Dana", "rabbit", "Clover", "high school teacher", "pottery", "Austin", "Sam", "pilot", "Morocco", "tacos",
     "drums"),
    ("Emeka", "tortoise", "Sheldon", "civil engineer", "photography", "Toronto", "Ada", "nurse", "Norway",
     "jollof rice", "saxophone"),
    ("Freya", "horse", "Storm", "marine biologist", "sailing", "Bergen", "Nils", "chef", "Chile", "salmon",
     "piano"),
]


def fmt(dt: datetime) -> str:
    hour = dt.strftime("%I").lstrip("0")
    return f"{hour}:{dt.strftime('%M')} {dt.strftime('%p').lower()} on {dt.day} {dt.strftime('%B')}, {dt.year}"


def sample(idx: int, a: tuple, b: tuple, rng: random.Random) -> dict:
    start = datetime(2023, 1 + idx * 2, 3 + idx, 14, 5)
    dates = [start + timedelta(days=9 * s + rng.randint(0, 3)) for s in range(6)]
    conv: dict = {"speaker_a": a[0], "speaker_b": b[0]}
    qa: list[dict] = []
    turns: dict[str, str] = {}

    def facts(p: tuple) -> list[tuple[int, str, str]]:
        _, pet, pet_name, job, hobby, city, sib, sib_job, trip, food, instrument = p
        return [
            (0, "pet", f"We finally adopted a {pet} last weekend, we named it {pet_name}!"),
            (0, "job", f"Work at the clinic is fine, being a {job} keeps me on my toes." if "nurse" in job
             else f"Work is fine, being a {job} keeps me on my toes."),
            (1, "hobby", f"I spent the whole Saturday {hobby} with some friends, it was exhausting but fun."),
            (2, "move", f"Big news: I moved to {city} yesterday, the apartment is still full of boxes."),
            (2, "sibling", f"My brother {sib} just got a job as a {sib_job}, the whole family is proud."
             if sib in ("Tom", "Sam", "Nils", "Li") else f"My sister {sib} just became a {sib_job}, we are so proud."),
            (3, "trip", f"I'm planning a two-week trip to {trip} next month, I already booked the flights."),
            (4, "pet_vet", f"{pet_name} had to go to the vet today, nothing serious, just a small infection."),
            (4, "food", f"I cooked {food} for dinner again, it's honestly my favourite thing to eat."),
            (5, "instrument", f"I started taking {instrument} lessons, my teacher says I'm making progress."),
            (5, "trip_back", f"I'm back from {trip}! The landscapes were unbelievable."),
        ]

    fa, fb = facts(a), facts(b)
    for s, when in enumerate(dates, start=1):
        conv[f"session_{s}_date_time"] = fmt(when)
        session = []
        script: list[tuple[tuple, str | None, str]] = []
        for (sess, key, text), (sess_b, key_b, text_b) in zip(fa, fb, strict=True):
            if sess == s - 1:
                script.append((a, key, text))
            if sess_b == s - 1:
                script.append((b, key_b, text_b))
        mixed: list[tuple[tuple, str | None, str]] = []
        for i, (who, key, text) in enumerate(script):
            mixed.append((b if who is a else a, None, rng.choice(FILLER)))
            mixed.append((who, key, text))
            if i % 2:
                mixed.append((who, None, rng.choice(FILLER)))
        for n, (who, key, text) in enumerate(mixed, 1):
            dia = f"D{s}:{n}"
            session.append({"speaker": who[0], "dia_id": dia, "text": text})
            if key:
                turns[f"{who[0]}:{key}"] = dia
        conv[f"session_{s}"] = session

    for p, other in ((a, b), (b, a)):
        name, pet, pet_name, job, hobby, city, _, sib_job, trip, food, instrument = p
        t = turns
        qa += [
            {"question": f"What is the name of {name}'s pet?", "answer": pet_name, "evidence": [t[f"{name}:pet"]],
             "category": 4},
            {"question": f"What does {name} do for a living?", "answer": job, "evidence": [t[f"{name}:job"]],
             "category": 4},
            {"question": f"Which instrument is {name} learning to play?", "answer": instrument,
             "evidence": [t[f"{name}:instrument"]], "category": 4},
            {"question": f"When did {name} move to {city}?", "answer": "the day before the third session",
             "evidence": [t[f"{name}:move"]], "category": 2},
            {"question": f"When did {name} adopt {pet_name}?", "answer": "the weekend before the first session",
             "evidence": [t[f"{name}:pet"]], "category": 2},
            {"question": f"When is {name} travelling to {trip}?", "answer": "the month after the fourth session",
             "evidence": [t[f"{name}:trip"]], "category": 2},
            {"question": f"Why did {name}'s {pet} need medical care?", "answer": "a small infection",
             "evidence": [t[f"{name}:pet_vet"], t[f"{name}:pet"]], "category": 1},
            {"question": f"What did {name} think of the country they visited?", "answer": "unbelievable landscapes",
             "evidence": [t[f"{name}:trip_back"], t[f"{name}:trip"]], "category": 1},
            {"question": f"What profession did {name}'s sibling start?", "answer": sib_job,
             "evidence": [t[f"{name}:sibling"]], "category": 1},
            {"question": f"Would {name} enjoy an outdoor weekend of {hobby.split()[0]}?", "answer": "yes",
             "evidence": [t[f"{name}:hobby"]], "category": 3},
            {"question": f"What meal should you cook to please {name}?", "answer": food,
             "evidence": [t[f"{name}:food"]], "category": 3},
            {"question": f"What is the name of {other[0]}'s {pet}?", "answer": "not mentioned",
             "evidence": [t[f"{name}:pet"]], "category": 5},
            {"question": f"When did {other[0]} move to {city}?", "answer": "not mentioned",
             "evidence": [t[f"{name}:move"]], "category": 5},
        ]
    return {"sample_id": f"synthetic-{idx}", "conversation": conv, "qa": qa}


def main() -> None:
    rng = random.Random(7)
    samples = [sample(i, PEOPLE[2 * i], PEOPLE[2 * i + 1], rng) for i in range(3)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(samples)} samples, {sum(len(s['qa']) for s in samples)} questions")


if __name__ == "__main__":
    main()
