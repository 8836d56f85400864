"""Corrections said in passing win (issue 26, part 1): a memory that states a single-valued fact about now
(where someone lives or works, as what, a relationship status, a pet's name) fills a slot, and a later one
with another value replaces it, recorded in history as `supersedes` would. Through a real MCP client, with
the built-in hash embedder and the packaged MiniLM."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from bench.corrections import measure
from tests.conftest import DATA, Clock, call, connect

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
EMBEDDERS = ["hash", "minilm-int8"]


@pytest.mark.parametrize("embedder", EMBEDDERS)
async def test_a_move_said_in_passing_replaces_the_old_home(settings_factory, embedder):
    async with connect(settings_factory(embedder=embedder), Clock(NOW)) as (client, _):
        berlin = await call(client, "remember", content="I live in Berlin.", said_at="2026-11-10")
        await call(client, "remember", content="I work at Siemens as an engineer.")
        lisbon = await call(client, "remember", content="Actually I moved to Lisbon last month.")
        assert lisbon["superseded"] == berlin["id"]
        found = await call(client, "recall", query="where do I live", explain=True)
        ids = [hit["id"] for hit in found["results"]]
        assert ids[0] == lisbon["id"] and berlin["id"] not in ids  # the question asks the slot it fills
        assert found["results"][0]["breakdown"]["slot"] > 0
        old = json.loads((await client.read_resource(f"engrain://memories/{berlin['id']}")).contents[0].text)
        assert old["valid_until"] is not None and old["history"][-1]["action"] == "supersede"


async def test_what_is_not_a_correction_replaces_nothing(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        home = await call(client, "remember", content="I live in Berlin.")
        for text in (
            "My sister lives in Lisbon.",  # someone else's home
            "I'm moving to Madrid next month.",  # a plan
            "I lived in Porto for two years.",  # the past
            "I live in Berlin, near the Spree.",  # the same value
            "我住在北京。",  # another language's slot words, another value: the user's home again
        ):
            out = await call(client, "remember", content=text)
            if text.startswith("我"):
                assert out["superseded"] == home["id"]  # Chinese counts too: Beijing replaces Berlin
            else:
                assert out["superseded"] is None, text


async def test_an_older_statement_imported_later_does_not_win(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        now = await call(client, "remember", content="I work at Figma.", said_at="2026-10-01")
        old = await call(client, "remember", content="I work at Shopify.", said_at="2024-03-01")
        assert old["superseded"] is None
        found = await call(client, "recall", query="where do I work")
        ids = [hit["id"] for hit in found["results"]]
        assert now["id"] in ids and old["id"] not in ids


async def test_the_correction_pairs_hold_their_dev_split_to_a_floor(tmp_path):
    """tests/data/corrections.tsv (bench/corrections.py): the rules are tuned on the dev split only."""
    dev = await measure("hash", "dev", home=str(tmp_path / "home"))
    assert dev["overall"]["pairs"] >= 130 and dev["attributes"] >= 20
    assert dev["overall"]["precision"] >= 0.97 and dev["overall"]["recall"] >= 0.9


async def test_the_held_out_pairs_meet_the_issues_targets(tmp_path):
    """Issue 42's done-when, on the split no rule was tuned on: recall ≥ 0.90, precision ≥ 0.97 (measured
    0.964 / 0.981 when the rules were written; this guards against losing it)."""
    test = await measure("hash", "test", home=str(tmp_path / "home"))
    assert test["overall"]["pairs"] >= 100 and test["attributes"] >= 20
    assert test["overall"]["precision"] >= 0.97 and test["overall"]["recall"] >= 0.9


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # Issue 52: corrections in the words people use, told weeks after the fact, with no model.
        ("My dentist is Dr. Okafor on Baker Street.", "I switched dentists, I now see Dr. Lindqvist."),
        ("My therapist is Dr. Green.", "I don't see Dr. Green anymore, I'm seeing Sam Patel instead."),
        ("I'm on Vodafone.", "Ditched Vodafone for Giffgaff, way cheaper."),
        ("I'm with EE for my mobile.", "I switched from EE to Three last month."),
        ("I'm with EE for my mobile.", "I've gone over to Three, EE kept putting the price up."),
        ("Mi peluquero es Marco.", "Ahora me corta el pelo Lucía, de la peluquería Tijeras."),
        ("Je vais à la salle Basic-Fit.", "J'ai quitté Basic-Fit pour Neoness."),
        ("Meine Hausärztin ist Dr. Weber.", "Ich gehe nicht mehr zu Dr. Weber, sondern zu Dr. Yilmaz."),
        ("我的家庭医生是张医生。", "我现在不找张医生了，改看刘医生。"),
        # Leaving a job; the place of the one left ("那里"); a membership not renewed; a fact that names what
        # someone is called ("a counsellor called Ruth" is no past).
        ("I work as a paralegal at Irwin Mitchell.", "I resigned from Irwin Mitchell and joined a smaller firm."),
        ("我的牙医是陈医生。", "我现在不去陈医生那里了，换了一家诊所。"),
        ("我一直在威尔仕健身。", "威尔仕的卡到期不续了，换了家离公司近的。"),
        ("I see a counsellor called Ruth on Mondays.", "I no longer see Ruth, my sessions are with Daniel now."),
        # Given up, a last day (an ending that holds from a day on), an account closed, a membership cancelled.
        ("I'm a member at Third Space.", "Gave up on Third Space, the classes were always full."),
        ("I work in sales at Aviva.", "Yesterday was my last day at Aviva."),
        ("I bank with Halifax.", "Closed my Halifax account and moved everything to Starling."),
        ("Voy al gimnasio Altafit.", "Me di de baja en Altafit, era carísimo."),
        ("Ich bin bei McFit.", "Ich habe meine Mitgliedschaft bei McFit gekündigt."),
    ],
)
async def test_a_change_said_in_the_users_words_replaces_the_old_value(settings_factory, first, second):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        old = await call(client, "remember", content=first, said_at="2026-10-20")
        new = await call(client, "remember", content=second)
        assert new["superseded"] == old["id"], (first, second)
        text = (await client.call_tool("recall", {"query": first, "include_links": False})).content[0].text
    # The old value is gone from recall, or shown as replaced where the rest of its words still hold ("… on Baker
    # Street": issue 42's partial replacement).
    line = next((x for x in text.splitlines() if x.endswith(f"({old['id'][:8]})")), "")
    assert not line or f"replaced by {new['id'][:8]}" in line, text


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("My dentist is Dr. Okafor.", "My sister switched dentists, she now sees Dr. Lindqvist."),  # someone else's
        ("I go to PureGym.", "My friend keeps telling me to switch to Third Space."),  # advice
        ("My favourite drink is coffee.", "I had tea instead of coffee this morning."),  # a one-off
        ("I drive a Ford Focus.", "If I won the lottery I'd replace the Focus with a Porsche."),  # a hypothetical
        ("I live in Paris.", "I left Paris this morning for a weekend in Rome."),  # a trip, not a move
        ("My best friend works at Deloitte.", "I left Deloitte and joined a startup called Loop."),  # not the user's
        ("Voy al gimnasio BodyFit.", "Estoy pensando en cambiarme a Altafit."),  # a thought
        # A word of change (reading/changes.py) with no change of the user's value.
        ("I bank with Barclays.", "I now have a Monzo card too, just for travel."),  # an addition
        # now and then
        ("I go to PureGym.", "Now that it's summer I sometimes run at Roundhay Park instead of the gym."),
        ("My GP is Dr. Hughes.", "My mum now sees Dr. Amin at the same practice."),  # someone else's
        ("Trabajo en Telefónica.", "Ahora en Telefónica estoy en el equipo de Madrid."),  # the same value, more said
        ("Ich arbeite bei Siemens.", "Ich überlege, jetzt zu BMW zu wechseln."),  # a thought
        ("I go to PureGym.", "I'm going to the gym more often now."),  # no new value named
        ("I work at Deloitte.", "Moved from Cork to Lisbon because of Tariq's new job at Google."),  # his job
        ("我用的是小米13。", "我给我妈换了个华为手机。"),  # for someone else
        ("Ich bin bei der Sparkasse.", "Sollte ich zur DKB wechseln?"),  # a question
        ("My usual coffee place is Grind.", "Grind changed their beans, now I get my latte from Prufrock too."),  # also
        ("I work at Deloitte.", "My sister handed in her notice at KPMG."),  # hers
        ("I work at Deloitte.", "I joined a choir at St Mary's, started in March."),  # no place of work
        ("我在乐刻健身。", "我朋友乐刻的卡不续了。"),  # a friend's
        ("Ich arbeite bei Siemens.", "Mein Bruder ist jetzt bei BMW."),  # his
        ("I have a Pixel 7.", "Bought a new iPhone for my mum for Christmas."),  # a gift
        ("Tengo un Samsung Galaxy.", "Ahora tengo un iPhone nuevo para mi madre."),  # hers
    ],
)
async def test_the_same_words_that_change_no_fact_of_the_users_replace_nothing(settings_factory, first, second):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        await call(client, "remember", content=first, said_at="2026-10-20")
        new = await call(client, "remember", content=second)
    assert new["superseded"] is None, (first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # A change said by the new value alone (reading/changes.py): a word of change, a name, a shared domain.
        ("I train at Anytime Fitness.", "These days I do my workouts at The Gym Group instead."),
        ("My physio is Hannah at Active Life Clinic.", "I've been going to a new physio, Tom Reilly, since March."),
        ("Maya goes to St Anne's Primary.", "Maya started at Oakfield Primary in September, much happier there."),
        ("Mein Zahnarzt ist Dr. Braun in der Altstadt.", "Ich gehe seit dem Umzug zu Dr. Keller, der ist näher."),
        ("Mon médecin traitant, c'est le docteur Petit.", "Depuis que j'ai déménagé, je consulte le docteur Moreau."),
        ("J'ai un Samsung Galaxy S21.", "Mon nouveau téléphone, c'est un Pixel 8."),
        ("Trabajo en Telefónica.", "Desde enero estoy en Indra, me cambié por el sueldo."),
        ("我用的是招商银行。", "我把工资卡换成了工商银行。"),
        ("我家宽带是电信的。", "宽带现在换成联通的了。"),
        # A provider's name says its domain ("Sparkasse", "BBVA", "AOK"); the old value named as the reason is
        # still left; a pronoun after the new value is that value; a short fact read as English still holds.
        ("Ich bin bei der Sparkasse.", "Mein Konto habe ich zur DKB umgezogen."),
        ("Mi banco es el Santander.", "Me pasé al BBVA el mes pasado."),
        ("Ich bin bei der TK versichert.", "Ich bin jetzt bei der AOK, die TK war mir zu teuer."),
        ("Lena at Cutting Room does my hair.", "Booked my trim with Ana at Headmasters again, she's my go-to now."),
        ("Conduzco un Seat Ibiza.", "Vendí el Ibiza y ahora tengo un Toyota Corolla."),
        ("Mon dentiste, c'est le docteur Martin.", "J'ai changé de dentiste, je vais chez le docteur Leroy."),
        # Someone named who does something of the user's holds it; a place of work said by no word for it.
        ("Priya at Clearbooks has done my taxes for years.", "I've got a new accountant now, Femi Adeyemi."),
        ("C'est Inès qui me coupe les cheveux.", "Maintenant je vais chez Thomas, un coiffeur près du bureau."),
        ("Die Haare schneidet mir Jana.", "Seit dem Sommer gehe ich zu einem neuen Friseur, Salon Kamm."),
        ("Lucía me corta el pelo.", "Ahora voy a la peluquería de Marta, cerca del trabajo."),
        ("I work at Boots as a pharmacist.", "I'm at Superdrug now, started in January."),
        ("Ich arbeite bei Bosch.", "Seit Juli bin ich bei Continental."),
        # The old value named only as gone; a bank read past how the salary gets there; a number ported; "mon
        # compte" is an account, not a plan ("je compte partir").
        (
            "Mon médecin, c'est le docteur Faure.",
            "Le docteur Faure a pris sa retraite, maintenant je vais chez la docteure Simon.",
        ),
        ("我理发一直找阿杰。", "阿杰退休了，我现在找小林理发。"),
        ("我的工资卡是发到农业银行的。", "现在工资卡换成了招商银行。"),
        ("Je roule en Peugeot 208.", "Maintenant je roule en Tesla Model 3."),
        ("Estoy con Movistar.", "Me porté a Simyo el mes pasado."),
        ("Mon compte est chez LCL.", "Mon nouveau compte est chez Fortuneo."),
        # A name after an elided article, and the old one named as the reason after it.
        ("Je m'entraîne à l'Orange Bleue.", "Je vais chez Neoness maintenant, l'Orange Bleue était trop chère."),
    ],
)
async def test_a_change_said_by_the_new_value_alone_replaces_the_fact_of_its_domain(settings_factory, first, second):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        await call(client, "remember", content="My partner Sam is a teacher.", said_at="2026-10-01")
        old = await call(client, "remember", content=first, said_at="2026-10-20")
        await call(client, "remember", content="I love hiking in the Peak District.", said_at="2026-10-25")
        new = await call(client, "remember", content=second)
    assert new["superseded"] == old["id"], (first, second)


async def test_a_statement_never_says_it_may_replace_the_fact_it_replaced(settings_factory):
    """ "I resigned from X" speaks of the user's employer without a value for now (it may end the employer's fact)
    and names the value it leaves (it ends it): the result says it replaced it, and nothing it may replace."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        old = await call(client, "remember", content="I work as a paralegal at Irwin Mitchell.", said_at="2026-10-20")
        new = await call(client, "remember", content="I resigned from Irwin Mitchell and joined a smaller firm.")
    assert new["superseded"] == old["id"] and new["may_replace"] is None


async def test_a_change_that_does_not_say_which_of_two_values_it_ends_ends_neither(settings_factory):
    """A GP and a dentist are both "Dr.": "now see Dr. Amin" shares as much with each, so neither is replaced, and
    the result names the newer as one it may replace (the calling model, or the next reflection, settles it); a
    change that names the dentist's words ends the dentist only."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        gp = await call(client, "remember", content="My GP is Dr. Hughes.", said_at="2026-09-01")
        dentist = await call(client, "remember", content="My dentist is Dr. Okafor.", said_at="2026-09-02")
        said = "We changed practices and now see Dr. Amin."
        unsure = (await client.call_tool("remember", {"content": said})).content[0].text
        assert "It may replace" in unsure and dentist["id"][:8] in unsure, unsure
        gp_again = await call(client, "remember", content="My GP is Dr. Hughes.")
        assert gp_again["status"] == "duplicate" and gp_again["id"] == gp["id"]  # still live
        teeth = await call(client, "remember", content="These days Dr. Lindqvist looks after my teeth.")
        assert teeth["superseded"] == dentist["id"]
        found = await call(client, "recall", query="who is my GP")
    assert gp["id"] in [hit["id"] for hit in found["results"]]


async def test_the_pairs_in_the_users_words_hold_their_dev_split_and_report_the_held_out_one(tmp_path):
    """tests/data/corrections_in_their_words.tsv, written in six batches, each before the rules that read it
    (issue 52; tests/data/README.md): dev 68/75 and test 72/88 replaced, no wrong replacement, when the rules were
    last changed (held out before being looked at: the fourth batch 19/22, the fifth's test half 7/14, the sixth's
    2/12 — phrasing rules reach what they were shown); this guards both."""
    corpus = DATA / "corrections_in_their_words.tsv"
    dev = await measure("hash", "dev", home=str(tmp_path / "dev"), corpus=corpus, days=21)
    test = await measure("hash", "test", home=str(tmp_path / "test"), corpus=corpus, days=21)
    assert dev["overall"]["precision"] == 1.0 and dev["overall"]["recall"] >= 0.85
    assert test["overall"]["precision"] == 1.0 and test["overall"]["recall"] >= 0.8


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("where do I live these days?", "user:home"),
        ("Where does my sister work?", "sister:employer"),
        ("what do I do for a living", "user:job"),
        ("wo wohne ich?", "user:home"),
        ("¿Dónde trabajo ahora?", "user:employer"),
        ("où j'habite ?", "user:home"),
        ("我现在住在哪里？", "user:home"),
        ("what did I eat yesterday", None),
    ],
)
def test_a_question_names_the_slot_it_asks_about(question, slot):
    from engrain.reading.slots import asked_slot
    from engrain.text.languages import detect

    assert asked_slot(question, detect(question)) == slot


async def test_an_imported_history_keeps_the_latest_value_of_each_slot(settings_factory):
    items = [
        {"content": "I live in Lisbon now.", "said_at": "2023-06-01"},
        {"content": "I live in Berlin.", "said_at": "2023-01-10"},
        {"content": "I work at Siemens.", "said_at": "2023-01-10"},
        {"content": "My sister lives in Porto.", "said_at": "2023-02-01"},
    ]
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(client, "remember_many", items=items)
        lisbon, berlin, siemens, sister = out["results"]
        assert lisbon["superseded"] == berlin["id"]  # told later, whatever the order in the batch
        assert siemens["superseded"] is None and sister["superseded"] is None
        found = await call(client, "recall", query="where do I live")
        ids = [hit["id"] for hit in found["results"]]
        assert ids[0] == lisbon["id"] and berlin["id"] not in ids


async def test_where_the_rule_is_unsure_the_result_says_what_it_may_replace_and_reflection_settles_it(
    settings_factory,
):
    """ "I used to work at Google" may end "I work at Google" or not (a model can tell, the rules cannot): the
    write result names the memory it may replace, and the next reflection shows the pair for an update."""
    clock = Clock(NOW)
    async with connect(settings_factory(llm="host"), clock) as (client, _):
        google = await call(client, "remember", content="I work at Google.", said_at="2026-11-01")
        fond = await client.call_tool("remember", {"content": "I love working at Google."})
        assert fond.structured_content["may_replace"] is None and "may replace" not in fond.content[0].text
        first = await call(client, "reflect", force=True)
        await call(client, "reflect", task_id=first["task_id"], answer={"new_trends": []})
        clock.now += timedelta(days=2)
        past = await client.call_tool("remember", {"content": "I used to work at Google, those were the days."})
        result = past.structured_content
        assert result["may_replace"] == {"id": google["id"], "content": "I work at Google."}
        assert result["superseded"] is None  # unsure: nothing is replaced by the rule
        short = google["id"][:8]
        assert (
            f"It may replace {short} «I work at Google.»: if it does, call remember again with the same words and "
            f'supersedes="{short}"'
        ) in past.content[0].text
        task = await call(client, "reflect", force=True)
        lines = task["task"].splitlines()
        new = next(line for line in lines if "used to work at Google" in line)
        old = next(line for line in lines if line.endswith("«I work at Google.»"))
        assert new.startswith("[m1]") and new.endswith("(may replace [e1])") and old.startswith("[e1]")
        update = {"updates": [{"old_id": "e1", "new_id": "m1"}]}
        await call(client, "reflect", task_id=task["task_id"], answer=update)
        stale = json.loads((await client.read_resource(f"engrain://memories/{google['id']}")).contents[0].text)
        assert stale["valid_until"] is not None
        assert [h["reason"] for h in stale["history"] if h["action"] == "supersede"] == [
            f"superseded by {result['id']}"
        ]


async def test_an_imported_history_says_what_an_unsure_statement_may_replace(settings_factory):
    """Issue 39: the README promised `may_replace` for "I used to work at Google" and "I quit"; `remember_many`
    never gave it, and "I quit" after a job (not an employer) named nothing."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        batch = await call(
            client,
            "remember_many",
            items=[
                {"content": "I work as a nurse.", "said_at": "2026-03-01"},
                {"content": "I work at Google.", "said_at": "2026-04-01"},
                {"content": "I quit.", "said_at": "2026-06-01"},
                {"content": "I used to work at Google.", "said_at": "2026-07-01"},
            ],
        )
        nurse, google, quit_, used_to = batch["results"]
        assert quit_["may_replace"]["id"] == google["id"]  # the newest told before it of the job and employer
        assert used_to["may_replace"] == {"id": google["id"], "content": "I work at Google."}
        assert nurse["may_replace"] is None
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        job = await call(client, "remember", content="I work as a nurse.")
        assert (await call(client, "remember", content="I quit."))["may_replace"]["id"] == job["id"]


async def test_an_imported_history_names_what_a_change_may_replace_where_it_cannot_tell(settings_factory):
    """The batch path marks an unsure change as `remember` does: reflection shows the pair to the model."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(
            client,
            "remember_many",
            items=[
                {"content": "My GP is Dr. Hughes.", "said_at": "2026-01-10"},
                {"content": "My dentist is Dr. Okafor.", "said_at": "2026-01-11"},
                {"content": "We changed practices and now see Dr. Amin.", "said_at": "2026-05-02"},
            ],
        )
    _, dentist, change = out["results"]
    assert change["superseded"] is None and change["may_replace"]["id"] == dentist["id"], change


async def test_an_imported_history_applies_changes_said_in_the_users_words_in_told_order(settings_factory):
    """The batch path (remember_many, what an import uses) reads the values left in one statement for the whole batch
    and replaces in told order: the gym the user left goes, the one they went to after is kept."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(
            client,
            "remember_many",
            items=[
                {"content": "I go to PureGym on Kirkstall Road.", "said_at": "2026-01-10"},
                {"content": "I love the climbing wall at PureGym.", "said_at": "2026-02-10"},
                {"content": "Cancelled PureGym, I'm at Third Space now.", "said_at": "2026-05-02"},
                {"content": "I'm on Vodafone.", "said_at": "2026-03-01"},
            ],
        )
    gym, wall, left, phone = out["results"]
    assert left["superseded"] == gym["id"]  # the user's gym, not the line that only names it
    assert wall["superseded"] is None and phone["superseded"] is None
