"""Who is speaking a clause, and in which frame: is a statement inside a sentence the user's own claim about now?

"Translate into French: I live in Paris.", "Ask me whether I live in Paris.", "My brother joked that I work at
Google.", "In the play I work as a pilot." each hold a statement of the user's home, employer or job that the user
does not claim (issue 61: they replaced true facts). What frames a clause is read from the grammar around it, not
from a list of the sentences seen:
- a request to the assistant: the sentence opens with a verb in the imperative that takes a text or a task as its
  object (translate, rewrite, ask me, write, quiz me…; not one that asks the assistant to keep the user's word:
  "Remember that I work at Stripe now", "Please note I live in Glasgow now"), or asks "can you"/"I want you to";
- reported speech: someone else as subject, a verb that takes a clause (said, thinks, swears, keeps telling people,
  or any verb followed by "that": "joked that", "reported that"), nothing between it and the clause but its object
  ("Jake told the whole class I'm single"); or an evidential ("according to LinkedIn", "rumour has it"). Not a
  clause after a conjunction or a comma ("My wife and I moved…", "My sister helped me move, so I live…");
- the user's own words that claim nothing: a verb of pretending, joking or dreaming ("I joked that…", "I dreamt
  that…"), "as a prank";
- a hypothetical: a verb of supposing that governs the clause ("Imagine I live in Tokyo", "Pretend that…", "Say I
  drive…", not "Imagine my surprise: I work at Google now!"), a condition in the same clause ("as if I live in
  Tokyo"; not "If it helps, I live in Leeds now"), an adverb of supposing ("hypothetically", "for the sake of
  argument");
- fiction or a role: a place inside a made-up world — "in" + a play, game, story, novel, film, dream, scenario… (not
  "in the end", "in March") before the clause or closing the sentence ("I live in Narnia in my dreams"), "for the
  sketch", "let's roleplay", a story "where…".
A quote (quotation marks around the clause) is read in every language by `slots.framed`; this module reads English,
each other language's module keeps its `FRAME`.
"""

from __future__ import annotations

import re
from typing import Literal

Frame = Literal["request", "reported", "hypothetical", "fiction"]

_I = re.IGNORECASE
# Verbs whose imperative takes a text or a task: what follows is material for the assistant, not a claim. Verbs that
# ask the assistant to keep the user's word (remember, note, keep in mind, update) are not among them.
TASK_VERBS = (
    r"explain|give|write|fix|tell|show|make|help|list|summari[sz]e|translate|create|generate|rewrite|draft|continue|"
    r"try|add|convert|check|compare|suggest|recommend|find|describe|draw|design|debug|review|improve|shorten|rephrase"
)
_MORE_TASK_VERBS = (
    r"ask|quiz|test|remind|respond|reply|answer|proofread|edit|correct|paraphrase|polish|format|turn|read|repeat|"
    r"spell|sing|compose|complete|finish|act|roleplay|role-play|critique|grade|rate|analy[sz]e|book|send|email|text"
)
# What may come before an imperative: fillers, "please", and asking the assistant.
_LEAD = r"(?:(?:ok(?:ay)?|so|now|and|also|hey|hi|oh|please|pls|quickly|just|then|next|alright)[,!]?\s+)*"
_IMPERATIVE = re.compile(rf"^\s*{_LEAD}(?:{TASK_VERBS}|{_MORE_TASK_VERBS})\b(?!['’])", _I)
_ASKS_YOU = re.compile(
    r"\b(?:can|could|would|will)\s+you\b|\bI\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to\b|\bhelp\s+me\b", _I
)
# Someone else as subject: a noun phrase with a determiner, a pronoun, a name ("Tom", "My mum", "Everyone at the
# party"); never "I".
_SOMEONE = (
    r"(?:(?:my|our|his|her|their|the|a|an|this|that|some|every|each|your)\s+(?:[\w'’-]+\s+){0,2}?[\w'’-]+"
    r"|he|she|they|you|everyone|everybody|people|someone|somebody|nobody|no\s+one|others|"
    r"(?-i:(?!I\b|I['’])[A-Z][\w'’-]*)(?:\s+(?-i:[A-Z][\w'’-]*))?)"
)
# Verbs that take a clause without "that" ("Tom thinks I live…"); any verb takes one with it ("joked that").
_SAYING = (
    r"(?:say|says|said|saying|tell|tells|told|telling|think|thinks|thought|thinking|believe|believes|believed|assume"
    r"|assumes|assumed|reckon|reckons|reckoned|guess|guessed|know|knows|knew|bet|claim|claims|claimed|claiming|insist"
    r"|insists|insisted|swear|swears|swore|suspect|suspects|suspected|joke|jokes|joked|joking|wrote|writes|announced"
    r"|convinced|sure|certain|heard|hears|suppose|supposes|supposed|imagine|imagines|imagined|pretend|pretends"
    r"|pretended|dream|dreams|dreamt|dreamed)"
)
_AUX = (
    r"(?:(?:[a-z]+ly|keeps?|kept|likes?\s+to|loves?\s+to|used\s+to|has|have|had|is|are|was|were|would|will|always"
    r"|still|never|even|also|just|once|often|sometimes|\w+n['’]t|been)\s+)*"
)
# What may stand between the verb and the clause: its object, a place ("in her diary"); no conjunction, no comma.
_OBJECT = r"(?:(?!(?:and|but|so|because|since|as|when|after|before|then|while|though|although|or)\b)[\w'’-]+\s+){0,4}?"
# The clause follows at once, after "that", or after a colon (a quote's opening mark is read by `slots.framed`).
_CLAUSE_NEXT = r"(?:that\s+|whether\s+|if\s+)?(?::\s*)?$"
_REPORTED = re.compile(
    rf"(?:^|[^\w'’])(?<!\bI\s)(?P<who>{_SOMEONE})\s+{_AUX}(?:{_SAYING}\b\s*{_OBJECT}{_CLAUSE_NEXT}"
    rf"|[a-z]+(?:s|ed)\s+{_OBJECT}that\s+$)",
    _I,
)
# The subject of a subordinate clause is no speaker ("Since my company was acquired I work at…").
_SUBORDINATE = re.compile(
    r"\b(?:since|after|when|because|as|once|while|although|though|before|until|now\s+that)\s+$", _I
)
_EVIDENTIAL = re.compile(
    r"\baccording\s+to\b|\brumou?rs?\s+(?:has|have)\s+it\b|\bword\s+is\b|\b(?:supposedly|allegedly|reportedly)\b"
    r"|\bit(?:['’]s|\s+is|\s+was)\s+(?:said|rumou?red|claimed|believed)\b",
    _I,
)
# The user's own words that claim nothing: pretending, joking, dreaming, lying ("I joked that…", "I lied and said…").
_NOT_CLAIMED = re.compile(
    rf"\bI\s+{_AUX}(?:joked|joke|dreamt|dreamed|dream|pretended|pretend|imagined|imagine|fantasi[sz]ed|fantasi[sz]e"
    rf"|wished|wish|lied)(?:\s+(?:and|to)\s+(?:said|say|told|tell))?\s+{_OBJECT}{_CLAUSE_NEXT}"
    r"|\bas\s+an?\s+(?:joke|prank|gag|dare|bit)\b",
    _I,
)
# Said after the clause: "I live in Berlin, my brother says", "…, just kidding".
_SAID_AFTER = re.compile(
    rf",\s*(?:(?:{_SOMEONE})\s+{_AUX}{_SAYING}\b\s*(?:$|[,;)])|(?:just\s+)?(?:kidding|joking)\b|jk\b)", _I
)
_CLOSED = re.compile(r",\s*$")
# A verb of supposing governs the clause right after it ("Imagine I live…", "Pretend that…", "Say I drive…"), or
# a clause of another subject after it, with all that follows ("Pretend you're my assistant and…").
_SUPPOSING = r"(?:imagine|pretend|suppose|supposing|assume|assuming|picture|say|let['’]s\s+say|envision)"
_SUPPOSED = re.compile(rf"\b{_SUPPOSING}\s+(?:that\s+|for\s+a\s+(?:second|moment|minute)\s*,?\s+)?$", _I)
_SUPPOSED_OTHER = re.compile(rf"^\s*{_LEAD}{_SUPPOSING}\s+(?:that\s+)?(?:you|he|she|they|we|it|there)\b", _I)
_CONDITION = re.compile(
    r"\b(?:if|unless|what\s+if|as\s+if|as\s+though|even\s+if|in\s+case|whether)\b[^,;:]*$"
    r"|\b(?:hypothetically|theoretically|in\s+theory|for\s+the\s+sake\s+of\s+argument|in\s+an?\s+(?:alternate|"
    r"alternative|parallel|other)\s+(?:universe|world|timeline|life)|in\s+another\s+life)\b",
    _I,
)
# Made-up worlds and roles.
_WORLD = (
    r"(?:plays?|games?|stor(?:y|ies)|novels?|books?|films?|movies?|scripts?|screenplays?|shows?|series|sitcoms?"
    r"|soaps?|scenes?|sketch(?:es)?|skits?|improv|musicals?|operas?|episodes?|campaigns?|roleplays?|role-plays?"
    r"|simulations?|scenarios?|dreams?|daydreams?|nightmares?|fantas(?:y|ies)|fiction|fanfics?|universe|poems?"
    r"|songs?|lyrics|comics?|cartoons?|anime|metaverse|hypotheticals?|characters?|personas?|avatars?)"
)
_DETERMINER = r"(?:the|my|our|this|that|a|an|his|her|their|your)"
_INSIDE = re.compile(
    rf"\b(?:in|inside|within)\s+{_DETERMINER}\s+(?:[\w'’&-]+\s+){{0,3}}?{_WORLD}\b"
    rf"|\bfor\s+{_DETERMINER}\s+(?:[\w'’&-]+\s+){{0,2}}?{_WORLD}\s*(?:[,:]\s*|$)"
    rf"|\bas\s+{_DETERMINER}\s+(?:character|persona|avatar|role)\b|\bin\s+character\b"
    rf"|\blet['’]?s\s+(?:roleplay|role-play|pretend|play|imagine)\b"
    rf"|\b{_WORLD}\s+(?:where|in\s+which|about\s+how)\b",
    _I,
)
_INSIDE_AFTER = re.compile(
    rf"\b(?:in|inside|within)\s+{_DETERMINER}\s+(?:[\w'’&-]+\s+){{0,2}}?{_WORLD}\s*(?:$|[,;!?)])", _I
)


def frame_of(before: str, after: str = "") -> Frame | None:
    """The frame that makes a clause not the user's claim about now, if one does: `before` is its sentence up to
    the clause, `after` the rest of the sentence from it (a frame may close it: "…in my dreams")."""
    # An imperative governs what follows it, unless a comma closes it first ("Check it out, my new phone is…").
    if (_IMPERATIVE.match(before) and not _CLOSED.search(before)) or _ASKS_YOU.search(before):
        return "request"
    if _EVIDENTIAL.search(before) or _NOT_CLAIMED.search(before) or _SAID_AFTER.search(after):
        return "reported"
    reported = _REPORTED.search(before)
    if reported is not None and not _SUBORDINATE.search(before, 0, reported.start("who")):
        return "reported"
    if _SUPPOSED.search(before) or _SUPPOSED_OTHER.match(before) or _CONDITION.search(before):
        return "hypothetical"
    if _INSIDE.search(before) or _INSIDE_AFTER.search(after):
        return "fiction"
    return None
