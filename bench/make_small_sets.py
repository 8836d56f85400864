"""Small German and Spanish long-conversation sets in the LoCoMo layout (bench/quality.py reads them), written
by hand: two friends over three dated sessions, facts told once among small talk, and questions that ask
by the same words (single-hop, 4), by other words (single-hop paraphrase, 6: no content word shared), and
when (temporal, 2). Written for issue 27's per-language figures after the code they measure; not tuned on.

    python bench/make_small_sets.py   # writes bench/data/synthetic_small_de.json and _es.json
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

# (speaker index 0/1, text, fact key or None) per session; session dates as LoCoMo writes them.
GERMAN = {
    "speakers": ("Jonas", "Mia"),
    "dates": ["2:05 pm on 6 March, 2023", "7:30 pm on 20 March, 2023", "11:10 am on 8 April, 2023"],
    "sessions": [
        [
            (0, "Hey Mia, wie geht's dir?", None),
            (1, "Gut, danke! Viel los bei der Arbeit.", None),
            (0, "Ich arbeite jetzt als Tontechniker in einem Studio in Köln.", "job"),
            (1, "Wow, das klingt spannend.", None),
            (1, "Wir haben letzte Woche einen Hund aus dem Tierheim geholt, er heißt Bruno.", "dog"),
            (0, "Wie süß! Welche Rasse?", None),
            (1, "Ein Mischling, sehr verspielt.", None),
            (0, "Ich gehe jeden Donnerstag schwimmen, das hält mich fit.", "swim"),
            (1, "Das sollte ich auch mal machen.", None),
            (0, "Haha, komm doch mit.", None),
        ],
        [
            (1, "Jonas, ich habe eine Neuigkeit!", None),
            (1, "Ich habe gestern meine Masterarbeit abgegeben.", "thesis"),
            (0, "Glückwunsch! Worüber hast du geschrieben?", None),
            (1, "Über Stadtplanung und Fahrradwege.", "thesis_topic"),
            (0, "Ich bin gegen Erdnüsse allergisch, deshalb koche ich meistens selbst.", "allergy"),
            (1, "Oh, das wusste ich nicht.", None),
            (0, "Meine Schwester Lena zieht im Sommer nach Hamburg.", "sister"),
            (1, "Schön für sie!", None),
            (0, "Ja, sie freut sich sehr.", None),
            (1, "Bis bald!", None),
        ],
        [
            (0, "Na, wie war Ostern?", None),
            (1, "Wir waren mit Bruno an der Ostsee wandern.", "easter"),
            (0, "Herrlich. Ich habe mir ein gebrauchtes E-Bike gekauft.", "bike"),
            (1, "Cool, fährst du jetzt damit zur Arbeit?", None),
            (0, "Jeden Tag, außer wenn es regnet.", None),
            (1, "Ich lerne seit Januar Klavier.", "piano"),
            (0, "Wie läuft es?", None),
            (1, "Langsam, aber es macht Spaß.", None),
            (0, "Schön zu hören.", None),
            (1, "Tschüss, bis nächste Woche!", None),
        ],
    ],
    "questions": [
        ("Als was arbeitet Jonas?", ["Jonas:job"], 4),
        ("Wie heißt Mias Hund?", ["Mia:dog"], 4),
        ("Wann schwimmt Jonas?", ["Jonas:swim"], 4),
        ("Wohin zieht Jonas' Schwester?", ["Jonas:sister"], 4),
        ("Welches Instrument lernt Mia?", ["Mia:piano"], 4),
        ("Was ist Jonas' Beruf?", ["Jonas:job"], 6),
        ("Hat Mia ein Haustier?", ["Mia:dog"], 6),
        ("Welchen Sport treibt Jonas regelmäßig?", ["Jonas:swim"], 6),
        ("Was darf Jonas nicht essen?", ["Jonas:allergy"], 6),
        ("Womit pendelt Jonas ins Büro?", ["Jonas:bike"], 6),
        ("Worum ging es in Mias Abschlussarbeit?", ["Mia:thesis_topic"], 6),
        ("Wann hat Mia ihre Masterarbeit abgegeben?", ["Mia:thesis"], 2),
        ("Wann hat Mia einen Hund bekommen?", ["Mia:dog"], 2),
        ("Wann hat Jonas das E-Bike gekauft?", ["Jonas:bike"], 2),
        ("Seit wann lernt Mia Klavier?", ["Mia:piano"], 2),
        ("Wo war Mia an Ostern?", ["Mia:easter"], 4),
    ],
}

SPANISH = {
    "speakers": ("Lucía", "Mateo"),
    "dates": ["4:15 pm on 9 May, 2023", "8:00 pm on 24 May, 2023", "10:30 am on 11 June, 2023"],
    "sessions": [
        [
            (1, "¡Hola Lucía! ¿Qué tal todo?", None),
            (0, "¡Muy bien! Ahora trabajo como enfermera en un hospital de Sevilla.", "job"),
            (1, "¡Qué bien! ¿Te gusta?", None),
            (0, "Me encanta, aunque los turnos de noche cansan.", None),
            (1, "No como carne desde hace años, así que voy a abrir un restaurante vegetariano.", "veg"),
            (0, "¡Qué idea tan buena!", None),
            (1, "Ya veremos, es mucho trabajo.", None),
            (0, "Mi gata se llama Luna y duerme todo el día.", "cat"),
            (1, "Jaja, como todos los gatos.", None),
            (0, "Hablamos pronto.", None),
        ],
        [
            (1, "Lucía, ¿sabes qué? Ayer me mudé a Valencia.", "move"),
            (0, "¡No me digas! ¿Y qué tal el piso?", None),
            (1, "Pequeño pero cerca de la playa.", None),
            (0, "Yo juego al pádel todos los martes con mis compañeras.", "padel"),
            (1, "Tengo que probarlo algún día.", None),
            (0, "Mi hermano Pablo se casa en septiembre.", "brother"),
            (1, "¡Felicidades a tu familia!", None),
            (0, "Gracias, estamos muy contentos.", None),
            (1, "Me alegro mucho.", None),
            (0, "Un abrazo.", None),
        ],
        [
            (0, "El fin de semana pasado fuimos de excursión a la Sierra Nevada.", "hike"),
            (1, "¡Qué envidia! Yo estuve todo el finde pintando el piso.", None),
            (1, "Por cierto, empecé clases de guitarra hace dos semanas.", "guitar"),
            (0, "¿Y qué tal se te da?", None),
            (1, "Fatal, pero me divierte.", None),
            (0, "Soy alérgica a las nueces, así que ten cuidado si cocinas para mí.", "allergy"),
            (1, "Lo tendré en cuenta.", None),
            (0, "Perfecto.", None),
            (1, "Nos vemos pronto.", None),
            (0, "¡Chao!", None),
        ],
    ],
    "questions": [
        ("¿En qué trabaja Lucía?", ["Lucía:job"], 4),
        ("¿Cómo se llama la gata de Lucía?", ["Lucía:cat"], 4),
        ("¿Adónde se mudó Mateo?", ["Mateo:move"], 4),
        ("¿Qué día juega Lucía al pádel?", ["Lucía:padel"], 4),
        ("¿Quién se casa en septiembre?", ["Lucía:brother"], 4),
        ("¿Cuál es la profesión de Lucía?", ["Lucía:job"], 6),
        ("¿Qué no come Mateo?", ["Mateo:veg"], 6),
        ("¿Tiene Lucía alguna mascota?", ["Lucía:cat"], 6),
        ("¿Qué deporte practica Lucía?", ["Lucía:padel"], 6),
        ("¿Qué instrumento está aprendiendo Mateo?", ["Mateo:guitar"], 6),
        ("¿Qué alimentos debe evitar Lucía?", ["Lucía:allergy"], 6),
        ("¿Cuándo se mudó Mateo a Valencia?", ["Mateo:move"], 2),
        ("¿Cuándo empezó Mateo las clases de guitarra?", ["Mateo:guitar"], 2),
        ("¿Cuándo fue Lucía de excursión a la Sierra Nevada?", ["Lucía:hike"], 2),
        ("¿Cuándo se casa el hermano de Lucía?", ["Lucía:brother"], 2),
        ("¿Qué negocio quiere abrir Mateo?", ["Mateo:veg"], 4),
    ],
}


def build(spec: dict, sample_id: str) -> dict:
    speakers = spec["speakers"]
    conversation: dict = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    keys: dict[str, str] = {}
    for s, (when, turns) in enumerate(zip(spec["dates"], spec["sessions"], strict=True), start=1):
        conversation[f"session_{s}_date_time"] = when
        session = []
        for t, (who, text, key) in enumerate(turns, start=1):
            dia = f"D{s}:{t}"
            session.append({"speaker": speakers[who], "dia_id": dia, "text": text})
            if key:
                keys[f"{speakers[who]}:{key}"] = dia
        conversation[f"session_{s}"] = session
    qa = [
        {"question": q, "answer": "", "evidence": [keys[k] for k in evidence], "category": category}
        for q, evidence, category in spec["questions"]
    ]
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def main() -> None:
    for lang, spec in (("de", GERMAN), ("es", SPANISH)):
        out = DATA / f"synthetic_small_{lang}.json"
        out.write_text(json.dumps([build(spec, f"small-{lang}")], indent=1, ensure_ascii=False) + "\n")
        print(f"{out}: {len(spec['questions'])} questions")


if __name__ == "__main__":
    main()
