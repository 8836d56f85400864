"""The text of a recall result, as most clients hand it to the model: one line per hit (services/wording/lines.py),
whole memories until the text's token budget, and the score's terms only when asked (explain)."""

from __future__ import annotations

from datetime import datetime, tzinfo

from engrain.reading.periods import Period
from engrain.rules.digests import DIGEST
from engrain.services.recall.results import RecallHit, RecallResult
from engrain.services.wording.lines import marks, memory_line, shown_when
from engrain.text.quoting import DATA_NOTICE, inline

# The text's budget when the call names none (max_tokens): whole memories first, a long one cut to what
# is left. About four characters a token, as estimate_tokens counts.
TEXT_TOKENS = 1500
_MIN_CUT = 80  # characters: below this, a memory that does not fit is left to the structured result


def render(result: RecallResult, *, now: datetime, tz: tzinfo | None, explain: bool, budget: int | None) -> str:
    when = f" as of {result.as_of.isoformat(timespec='seconds')}" if result.as_of else ""
    count = len(result.results)
    order = ", in the order told" if result.in_time_order else ""
    gathered = result.gathered
    digest = "a digest, then " if any(hit.kind == DIGEST for hit in result.results) else ""
    found = f" of {gathered.found} found, {digest}spread over {gathered.occasions} days told" if gathered else ""
    lines = [
        f"{count} {'memory' if count == 1 else 'memories'}{found} for «{inline(result.query, 60)}»{when}{order} "
        f"({DATA_NOTICE})"
    ]
    if any(hit.excerpt for hit in result.results):
        lines.append("(a long memory shows its passages that match, …between dots…; engrain://memories/{id} is whole)")
    if result.words_only:  # one short line: the model reads the hits knowing why a paraphrase may be missing
        lines.append(f"(by words only: {result.words_only})")
    left = 4 * (budget if budget is not None else TEXT_TOKENS)
    chosen: list[tuple[RecallHit, list[str]]] = []  # the best hits that fit, each with its lines
    for hit in result.results:
        if left < _MIN_CUT:
            break
        line = _line(hit, now, tz, limit=left)
        block = [line]
        if explain and hit.breakdown is not None:
            terms = hit.breakdown.model_dump()
            block.append(f"  score {hit.score:.3f}: " + ", ".join(f"{k} {_term(v)}" for k, v in terms.items()))
        chosen.append((hit, block))
        left -= len(line)
    if result.in_time_order:  # the best that fit, told first first: a story read as it happened; a digest, the
        # summary of a story, before it (services/recall/gathering.py)
        chosen.sort(key=lambda pair: (pair[0].kind != DIGEST, pair[0].told_at))
    lines += [line for _, block in chosen for line in block]
    shown = len(chosen)
    if gathered is not None and gathered.found > shown:
        lines.append(f"({gathered.found - shown} more found: recall with a larger max_tokens, or ask narrower)")
    elif shown < count:
        lines.append(f"({count - shown} more in the structured result, or recall with a larger max_tokens)")
    return "\n".join(lines)


def _line(hit: RecallHit, now: datetime, tz: tzinfo | None, limit: int) -> str:
    happened = Period.stored(hit.event_time, hit.event_end, hit.event_grain, tz)
    tags = marks(
        hit.kind, hit.temporality, happened, now, hit.habit, hit.stage, hit.digest_of or 0, was_plan=hit.was_plan
    )
    tags += [hit.replaced] if hit.replaced else []
    tags += [hit.outdated] if hit.outdated else []
    if hit.source == "linked" and hit.relation:
        tags.append(f"linked: {hit.relation}")
    shown = shown_when(hit.kind, hit.told_at, happened)
    content = f"…{hit.excerpt}…" if hit.excerpt else hit.content
    return memory_line(content, hit.id, shown=shown, tz=tz, tags=tags, limit=limit)


def _term(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)
