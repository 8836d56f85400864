"""The profile of a real-length history (issue 61, point 1), through a real MCP client on the host route.

A calling model went through a 29-session conversation (January to November 2022) and read the profile at the end:
it held 9 of 15 key facts and 3 of 9 established or core traits — six "About them" lines of a 250-character memory
each had spent the budget, and every established trait and the key dates from session 20 on were only counted.
Here a person is told the same way: 29 sessions eleven days apart, each stored as a calling model stores what it
was told (`remember_many`, long chat turns in the user's words, a key or an importance where a model gives one),
each followed by a reflection the calling model answers — a trait when a pattern first shows, a reinforcement
each time it shows again — so that the traits reach their stages through the server's own lifecycle. The
profile must then show every established and core trait and every key fact, within its token budget.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from mcp import Client

from engrain.services.profile.sections import LINE_CHARS, PROFILE_TOKENS
from engrain.services.recall.search import estimate_tokens
from tests.conftest import Clock, call, connect
from tests.scripted import answer
from tests.services.profile.test_profile import read_profile, section

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)  # the server's day: the history is years old
FIRST = date(2022, 1, 8)
SESSIONS = 29
PER_SESSION = 6  # memories a session stores at least: ~174 in all


def day(session: int) -> str:
    return (FIRST + timedelta(days=11 * session)).isoformat()


@dataclass(frozen=True)
class Topic:
    """A pattern of the user's life: what the calling model concludes from it, the words that make a memory its
    evidence, the grade it gives that evidence, and what the user said of it in which session."""

    trait: str
    evidence: str
    grade: str
    told: dict[int, str]


TOPICS = [
    Topic(
        "Goes bouldering at a climbing gym most weeks",
        "bouldering",
        "B",
        {
            0: "Went bouldering after work with Priya and I'm sore in places I didn't know had muscles. I keep falling "
            "off the same purple V3 at the top, but the crowd at the gym is friendly and someone showed me a heel "
            "hook that almost worked.",
            3: "Bouldering night again: I finally topped the purple V3 that had been mocking me for weeks, and Priya "
            "filmed it so I have proof. My fingertips are raw and I couldn't be happier about a plastic wall.",
            6: "Found a bouldering gym ten minutes from the new apartment, so the move didn't cost me my Tuesday "
            "sessions after all. The setters here love slab problems, which are my weakness, so that's the project "
            "for spring.",
            9: "Spent two hours bouldering on Saturday and worked through the whole new blue circuit except the "
            "overhang. A guy there suggested campus board training, which sounds like a fast way to hurt my fingers.",
            12: "Took Jonas bouldering for the first time; he lasted forty minutes before declaring it a sport for "
            "lizards. I did my first V5 on the slab wall, though, so the evening was a triumph as far as I'm "
            "concerned.",
            15: "Outdoor bouldering trip to Smith Rock with the gym crowd this weekend. Real rock is so much scarier "
            "than plastic, and I spent most of the day spotting others, but I sent one lovely arete at dusk.",
            18: "The gym started a bouldering league for the summer and I signed up for the intermediate bracket: four "
            "teams, points per problem, and a barbecue at the end, which is honestly the main attraction for most.",
            21: "Bouldering league week six: our team is in second place, mostly thanks to a teenager called Leo who "
            "climbs like gravity is optional. I flashed two of the new pink problems and got a small round of "
            "applause.",
            24: "Back to bouldering after the cough cleared up, a bit weaker than before. Three weeks off and my grip "
            "was gone, so I stuck to easy circuits and tried not to compare myself with the summer version of me.",
            27: "Bouldering on Sunday morning was quiet and perfect; I had the cave section to myself and worked the "
            "same V5 roof for an hour. It's become my way of clearing my head after a heavy week at work.",
        },
    ),
    Topic(
        "Cooks vegetarian meals from scratch",
        "cooked",
        "B",
        {
            1: "I cooked a big pot of black bean chili on Sunday and froze half of it for the week, which is my new "
            "strategy for not eating crackers for dinner. Jonas said it was the best vegetarian chili he's had.",
            4: "Tried a new recipe: I cooked a Sri Lankan dhal with coconut milk and curry leaves from the Asian "
            "market, and it came out creamy and spicy and perfect. Writing it down so I remember to buy more curry "
            "leaves.",
            7: "First dinner in the new kitchen! I cooked mushroom risotto for our neighbours as a thank-you for "
            "helping us carry the sofa up three flights; the stove is gas, which changes everything, and nothing got "
            "burnt.",
            10: "I cooked my grandmother's pastel de choclo without the beef, using lentils and olives instead, and it "
            "tasted like home. I had to call my mum twice to ask about the corn topping, but it was worth every "
            "minute.",
            13: "Meal prep Sunday: I cooked three trays of roasted vegetables, a pot of farro and a big jar of green "
            "sauce, and the fridge now looks like a food blog. Let's see how long the discipline lasts this time.",
            16: "I cooked a five-course vegetarian dinner for Jonas's parents to celebrate; the beet carpaccio was a "
            "hit, the tart collapsed, and his dad asked for the lentil stew recipe, so I'm counting that as a win.",
            19: "Too hot to turn on the oven, so I cooked everything on the grill this week: halloumi skewers, grilled "
            "peaches, corn with lime and chilli. Jonas has started calling himself the official taste tester.",
            22: "I cooked my first proper thali from a cookbook Priya lent me, with four small dishes, rice and "
            "homemade chapatis. It took the whole afternoon and the kitchen looked like a bomb had gone off, but wow.",
            25: "Comfort food week: I cooked a huge batch of squash soup and a tray of mac and cheese while my dad was "
            "in hospital, because stress-cooking is apparently what I do. The freezer is now full to the brim.",
            28: "I cooked a test menu at home to see if a vegetarian wedding dinner would feel festive enough: wild "
            "mushroom wellington, charred broccolini and a polenta cake, and honestly I'd serve it to a king.",
        },
    ),
    Topic(
        "Is learning Portuguese with a tutor",
        "Portuguese",
        "B",
        {
            2: "My Portuguese tutor Ana says my pronunciation is improving but my verb endings are a disaster, which "
            "is fair. I do twenty minutes on the app every morning and one video lesson a week, and I can order coffee "
            "now.",
            5: "Watched a Brazilian film in Portuguese without subtitles for the first twenty minutes before giving "
            "up. I understood maybe a third, which Ana says is actually good at this stage, so I'm choosing to believe "
            "her.",
            8: "Portuguese milestone: I had a ten-minute conversation with Ana entirely in the past tense and only "
            "switched to Spanish twice. The Spanish interference is my biggest problem, the words look so alike.",
            11: "Joined a Portuguese conversation meetup at a café on Alberta Street; there were eight of us, two from "
            "Lisbon, and I managed to tell a whole story about the move, even if it came out in a funny accent.",
            14: "My Portuguese streak on the app hit 150 days today. Ana wants me to start reading short news "
            "articles, so I've subscribed to a Brazilian newsletter about food, which seemed like the least painful "
            "way in.",
            17: "Ana and I did a Portuguese lesson on wedding vocabulary as a joke, and now I know how to say "
            "'bridesmaid' and 'seating chart' but still not how to conjugate the subjunctive. Priorities, I guess.",
            20: "I read my first full novel chapter in Portuguese, slowly and with a dictionary, but I got the plot. "
            "It's a Clarice Lispector book Ana picked, which might have been a bit ambitious for a learner.",
            23: "The Portuguese meetup asked me to give a five-minute talk about Chile, and I did it, sweating, with "
            "notes. A woman from Porto said my accent sounds 'Brazilian with a Chilean soul', which I'll treasure.",
            26: "Booked a Portuguese immersion weekend for March with a group that rents a house on the coast and bans "
            "English for three days. Ana thinks I'm ready, Jonas thinks I'm mad, and they're both probably right.",
        },
    ),
    Topic(
        "Runs along the river early in the morning",
        "river run",
        "B",
        {
            1: "Did my river run at 6:30 this morning in the dark with a headlamp, which felt very hardcore until a "
            "man with a dog overtook me. Five kilometres, cold hands, and then the best coffee of my life.",
            4: "Snow on the trail, so the river run turned into a careful shuffle, but I still did it because the "
            "streak matters to me now. Three weeks of running before work and I'm sleeping better than in years.",
            7: "New city, new river run: the Springwater trail starts two blocks from our door and follows the "
            "Willamette for miles. I saw herons, a beaver dam and about forty other runners, all more serious than me.",
            10: "Signed up for the city half marathon in May after a particularly good river run this morning; ten "
            "kilometres felt easy for the first time. Jonas says he'll be at the finish with an embarrassing sign.",
            13: "Half marathon done! Two hours and four minutes, and I cried at the finish, which Jonas caught on "
            "camera. The river run training at dawn paid off; I'm taking a week off and then maybe thinking bigger.",
            16: "Easy recovery river run with the new running club that meets at the Sellwood bridge at six; they're "
            "mostly retired teachers and they chat the whole way, which is exactly my pace these days.",
            19: "The smoke from the fires made the air too bad for my river run most of this week, so I did intervals "
            "on a treadmill at the gym and hated every second. Checking the air map has become a morning ritual.",
            22: "Back on the river run now that the air is clear; I did eight kilometres at dawn with the inhaler in "
            "my pocket and had no trouble at all. The doctor was right that the cold mornings are the tricky part.",
            25: "Short river run today because I needed to think about my dad; running is the only time my head goes "
            "quiet. He's doing well after the surgery, and I ran the last kilometre much faster than I meant to.",
            28: "Frosty river run this morning with the running club, and we planned a Thanksgiving turkey trot "
            "together. I'm more consistent than I've ever been, most mornings for almost a whole year now.",
        },
    ),
    Topic(
        "Grows vegetables and herbs on the balcony",
        "balcony garden",
        "C",
        {
            9: "Started a balcony garden at last: six pots of tomatoes, a tray of basil, chillies and a sad-looking "
            "lemon tree from the hardware store. Miso keeps trying to eat the basil, so I built a fence of chopsticks.",
            14: "The balcony garden is exploding: the cherry tomatoes are taller than me and the basil is forming a "
            "small forest. I've started giving bags of herbs to the neighbours because we cannot eat this much pesto.",
            20: "Balcony garden harvest this week: two kilos of tomatoes, a handful of chillies and one lemon, which "
            "I'm treating as a personal triumph. I made passata from the tomatoes and froze it for winter.",
            26: "Put the balcony garden to bed for the winter: pulled the tomato plants, moved the lemon tree inside "
            "and planted garlic in two pots, which the internet promises will be ready by summer.",
        },
    ),
    Topic(
        "Plays board games with a group of friends",
        "board game",
        "C",
        {
            3: "Board game night at Priya's: we played Wingspan for three hours and I lost spectacularly but learned a "
            "lot about birds. Jonas won, as usual, and was insufferable about it all the way home.",
            11: "Hosted our first board game night in the new place with eight people and a giant pot of soup; we "
            "played Codenames until one in the morning, and the neighbours only complained a little.",
            17: "Bought Spirit Island for our board game group after weeks of debate, and it took two hours just to "
            "learn the rules. Worth it, though: cooperative games mean nobody is insufferable at the end.",
            23: "Board game night turned into a tournament of Azul that lasted until two; I won three rounds in a row, "
            "which has never happened before. Jonas is demanding a rematch with his reputation on the line.",
        },
    ),
    Topic(
        "Volunteers at a cat shelter",
        "shelter",
        "C",
        {
            4: "Did my first volunteer shift at the cat shelter in Ballard, mostly cleaning litter boxes and "
            "socialising the shy ones. There's a grey tabby who hid under a blanket the whole time and I'm in trouble.",
            12: "Started volunteering at a cat shelter near the new place on Saturday mornings; they're short of "
            "people for the feeding rounds, and the manager let me bring Miso's old toys for the kittens.",
            18: "Long shift at the shelter: a litter of six kittens came in from a farm and I spent three hours "
            "bottle-feeding them. I smelled of kitten formula all evening and Jonas talked me out of bringing one "
            "home.",
            24: "The shelter asked me to help with their adoption records because it's a spreadsheet from 2009; I'm "
            "giving two evenings to rebuild it properly, the most useful my work skills have ever felt.",
        },
    ),
    Topic(
        "Reads science fiction",
        "sci-fi",
        "C",
        {
            7: "Finished the first Expanse book on the moving weekend, reading on boxes in the empty apartment. I'd "
            "forgotten how much I love big sci-fi with politics in it; starting the second one instead of unpacking.",
            15: "Reading a sci-fi novel by Becky Chambers on the beach trip and it's so gentle and kind that I kept "
            "reading bits out loud to Jonas. It's the opposite of everything else I read, and I needed that.",
            21: "My sci-fi book club picked The Left Hand of Darkness and we argued about it for two hours in the back "
            "room of a pizza place. I'm the only one who liked the long ice-crossing chapters.",
            27: "Bought three sci-fi paperbacks at Powell's today, which was meant to be a quick look around. I now "
            "own more books I haven't read than books I have, and I'm at peace with it.",
        },
    ),
    Topic(
        "Keeps a journal before bed",
        "journal",
        "C",
        {
            5: "I've started writing in a journal before bed, just half a page about the day. It's surprisingly "
            "calming, and I've noticed I'm less likely to lie awake replaying work conversations.",
            13: "Reread my journal from January tonight and laughed at how stressed I was about the move. Writing "
            "before bed has stuck for five months now, longer than any other habit I've tried.",
            20: "My journal has become half diary, half language practice: I write the last few lines of each entry in "
            "the new language now, badly, and my tutor corrects them on Thursdays.",
            25: "The journal got long this week, pages about my dad and the surgery and the waiting. Writing it all "
            "down before bed is what let me sleep at all.",
        },
    ),
    Topic(  # told twice: forming at most
        "Follows Formula 1",
        "Formula 1",
        "C",
        {
            16: "Stayed up to watch the Formula 1 race from Canada with Jonas's brother, who is obsessed and explains "
            "tyre strategy like it's quantum physics. I'm starting to get it, which is worrying.",
            26: "Watched the Formula 1 race in Austin at a bar with the running club people, and I cheered louder than "
            "anyone. Apparently I'm a fan now.",
        },
    ),
    Topic(
        "Bakes sourdough bread",
        "sourdough",
        "C",
        {
            8: "I've adopted a sourdough starter from Priya and named it Gerald. The first loaf was flat as a pancake "
            "but tasted great, and I'm determined to get a proper rise by summer.",
            22: "My sourdough finally has an ear! Gerald the starter is thriving on the kitchen counter and I baked "
            "two loaves on Saturday, one of which Jonas ate before it had cooled down.",
        },
    ),
]

# The key facts of the person, told as they came up (a key or an importance where a calling model gives one), and
# the words of each that a profile which holds the fact shows.
FACTS: dict[int, list[dict[str, Any]]] = {
    0: [
        # Without "work" in it: reading/changes.py took session 8's new employer for a change of this memory and
        # replaced it whole (a bug of its own, not the profile's).
        {
            "content": "Hi! Setting this up properly at last. My name is Daniela Ortiz, though everyone calls me Dani, "
            "and I'd like you to help me keep track of my lessons, my runs and the small admin I forget each week.",
            "key": "user · name",
        },
        {
            "content": "I live in Seattle, in a small one-bedroom in Fremont, and the rent went up again this month, "
            "so Jonas and I keep talking about whether it's time to move somewhere cheaper and greener.",
            "key": "user · home",
        },
        {
            "content": "I work as a data engineer, which mostly means building and babysitting pipelines that move "
            "sensor data around; it's not glamorous, but I love it when everything runs green on a Monday morning.",
            "key": "user · job",
        },
    ],
    1: [
        {
            "content": "Funny, the rain today reminded me of winter at home. I'm from Valparaíso originally, and my "
            "parents still live in the same house on Cerro Alegre; I fly back every December though the flights "
            "are brutal.",
            "key": "user · origin",
        },
        {
            "content": "My partner Jonas teaches chemistry at a high school and is the calmest person I know; we've "
            "been together six years and he's the one who got me into games in the first place.",
        },
    ],
    2: [
        {
            "content": "Ugh, had a scare at a work lunch today. I'm allergic to shellfish, and the caterer's "
            "'vegetable' dumplings turned out to have shrimp in them, so I spent the afternoon on antihistamines, very "
            "grumpy.",
            "importance": 8,
            "category": "health",
        },
    ],
    3: [
        {
            "content": "Please always give me metric units and temperatures in Celsius, even when the recipe or "
            "article you're quoting is American; I can never picture what 350 Fahrenheit means, and I won't convert "
            "them.",
        },
    ],
    5: [
        {
            "content": "We adopted the grey tabby from the shelter last Saturday! My cat Miso is about two years old, "
            "has already claimed the good armchair and knocks pens off my desk during every video call.",
            "importance": 7,
        },
    ],
    6: [
        {
            "content": "Big news: we finally moved to Portland last weekend! The new apartment in Sellwood has a "
            "balcony that gets afternoon sun, and it's a twenty-minute bike ride to the river, so I'm already planning "
            "tomatoes.",
            "importance": 8,
        },
    ],
    8: [
        {
            "content": "New job, day three. I joined Fernhill Analytics as a senior data engineer, and so far the team "
            "is lovely, the codebase is a mess, and the coffee machine is the best I've ever had at an office.",
            "importance": 8,
        },
    ],
    9: [
        {
            "content": "My sister Carla called from Santiago last night; she's an architect there and just won a "
            "competition to design a public library, which she has worked towards for three years, so we both "
            "cried a bit.",
        },
    ],
    12: [
        {
            "content": "Jonas asked what I want this year, which reminds me: my birthday is August 14, and I'd much "
            "rather have a quiet weekend at the coast than any presents, so please remind me to say that to him.",
            "key": "user · birthday",
        },
    ],
    15: [
        {
            "content": "Jonas proposed on June 18 at Cannon Beach, right at sunset, with a ring he'd hidden in a "
            "thermos of hot chocolate for two days; I said yes before he finished the sentence and we're still "
            "grinning.",
            "importance": 9,
            "event_time": "2022-06-18",
        },
    ],
    18: [
        {
            "content": "When I ask you for help with code, keep the answer short and give me the snippet first; I'll "
            "ask if I need the explanation, and long preambles make me lose the thread halfway through a bug.",
        },
    ],
    20: [
        {
            "content": "Saw the doctor about my cough after the wildfire smoke week. I have mild asthma, triggered by "
            "smoke and cold air, so now I carry an inhaler on long runs and check the air quality before heading out.",
            "importance": 8,
            "category": "health",
        },
    ],
    25: [
        {
            "content": "My dad had heart bypass surgery on October 3 in Valparaíso and it went well; my mum sends "
            "photos of him complaining about the hospital food, which the surgeon says is the best possible sign.",
            "importance": 9,
            "event_time": "2022-10-03",
        },
    ],
    26: [
        {
            "content": "We set the wedding date: June 17, 2023, at a small vineyard outside Portland, with about sixty "
            "guests, a vegetarian menu and my parents flying in from Chile for the whole month.",
            "importance": 9,
            "event_time": "2023-06-17",
        },
    ],
}
KEY_FACTS = {
    "name": "Daniela Ortiz",
    "origin": "Valparaíso originally",
    "home": "moved to Portland",
    "job": "I work as a data engineer",
    "employer": "Fernhill Analytics",
    "partner": "My partner Jonas",
    "sister": "My sister Carla",
    "cat": "My cat Miso",
    "birthday": "my birthday is August 14",
    "allergy": "allergic to shellfish",
    "asthma": "I have mild asthma",
    "units": "metric units",
    "code answers": "snippet first",
    "engagement": "Jonas proposed on June 18",
    "dad's surgery": "heart bypass surgery on October 3",
    "wedding": "wedding date: June 17, 2023",
}

# The rest of what was said: the week's news, told at length as chat turns are.
CHATTER = [
    "Spent the whole evening on the phone with the bank because they froze my card after I bought a train ticket in "
    "another state. Forty minutes of hold music that sounded like a dentist's waiting room, all for one text message.",
    "Priya came over with wine and we watched three episodes of a terrible dating show, shouting at the screen like "
    "sports fans. She's thinking about leaving her job at the hospital lab and I told her to go for it.",
    "The heating in our building broke again, so we spent the weekend in jumpers and fingerless gloves like "
    "Victorian clerks. The landlord says a technician will come on Tuesday, which means Thursday at the earliest.",
    "Had my annual review and it went better than expected: my manager said the alerting work saved the team a lot "
    "of night calls. No raise yet, but she wants me to lead the next migration, which is a good sign.",
    "Went to see a touring production of Hamilton with Jonas's colleagues and cried at the same song as everyone "
    "else. The tickets were outrageous but the seats were close enough to see the actors sweat.",
    "My laptop died in the middle of a demo, the screen just went black, and I had to finish presenting from my "
    "phone. IT says it's the battery and a new one will take a week, so I'm on a loaner that sounds like a jet.",
    "Marco from the old team visited on his way to a conference and we had ramen and talked for four hours about "
    "everything except work. It's funny how some friendships just pick up exactly where they left off.",
    "Did our taxes this weekend with a spreadsheet, two coffees and one small argument about whether a standing "
    "desk counts as a work expense. It does not, according to the internet and to Jonas.",
    "We finally watched the last season of that Danish crime show everyone recommended, and the ending made no "
    "sense at all. Jonas thinks it was deliberately ambiguous; I think the writers ran out of time.",
    "It rained for nine days straight and I have started talking to the umbrella stand. The forecast promises sun "
    "on Saturday, which I'll believe when I see it with my own eyes from the window.",
    "A pipeline failed at three in the morning and I was on call, so I spent an hour in pyjamas finding a typo in "
    "a config file someone merged on Friday afternoon. Adding a check so it never happens again.",
    "Spent Sunday at the farmers' market and came home with far too many leeks, a jar of local honey and a "
    "strong opinion about heirloom apples. The man at the apple stall talks like a wine critic.",
    "My mum called to say the neighbours' dog had puppies and she is 'just looking after one for a while', which "
    "means my parents now have a dog. My dad pretends to be annoyed and walks it three times a day.",
    "Jonas's school had a science fair and he came home with a head cold and a volcano made by a nine-year-old "
    "that actually erupts. It is now on our kitchen windowsill, which is apparently where volcanoes live.",
    "I tried to fix the dripping kitchen tap myself with a video tutorial and flooded the cupboard under the sink. "
    "A plumber came the next day, laughed kindly, and fixed it in eleven minutes for far too much money.",
    "We rented a car and drove up the Columbia Gorge to see the waterfalls; Multnomah was packed with tourists but "
    "the smaller trails were empty and magical. I took about four hundred photos of moss.",
    "The team had an offsite at a brewery that included a 'trust exercise' nobody trusted. The best part was the "
    "food truck outside, which did Korean tacos that I still think about at night.",
    "I finally cancelled three streaming subscriptions I forgot I had, which saves about forty dollars a month. "
    "Jonas insisted on keeping the one with the cooking competitions, which is fair, it's our Sunday ritual.",
    "Got new glasses with slightly bigger frames and everyone at work says I look like a professor. I can actually "
    "read the whiteboard from the back of the room now, which is helping in meetings.",
    "Spent a day helping Priya move into her new flat across the river; four flights of stairs, no lift, and a sofa "
    "that should not have fit through the door. We ordered pizza and ate it sitting on boxes.",
    "There was a small earthquake at two in the morning, just a rattle of the windows, but I lay awake until four "
    "reading about emergency kits. We now have a box of water and tinned beans in the hall closet.",
    "The new manager at work started this week and she seems sharp and direct, which I like. She asked everyone to "
    "write down one thing they'd change about the team, so I wrote about our meeting culture.",
    "Jonas and I had a long talk about money and whether to buy a place in the next few years. We made a spreadsheet "
    "of course, and the conclusion was 'maybe in two years if rates calm down', which is very us.",
    "My cousin Sofía is visiting from Santiago next spring and wants to see the redwoods and a real American diner. "
    "I'm trying to plan a route that covers both without driving ten hours a day.",
    "I went to a talk at the library about the history of the city's bridges and it was surprisingly gripping. The "
    "speaker was a retired engineer who told stories like a stand-up comedian.",
    "Work is intense this month because two clients want their dashboards before the end of the quarter. I'm "
    "blocking my mornings for deep work and answering messages only after lunch, which is helping.",
    "Our upstairs neighbour plays the cello every evening at seven, and at first I was annoyed but now I look "
    "forward to it. Last night it was Bach, I think, and I stopped chopping onions to listen.",
    "The power went out for six hours during the storm, so we played cards by candlelight and ate everything in "
    "the freezer that was starting to thaw. Honestly one of the nicer evenings this month.",
    "My phone screen cracked when I dropped it at the bus stop, right across the middle, so every message now looks "
    "like it's been through a shredder. Repair appointment on Friday, fingers crossed.",
    "We went to a friend's fortieth birthday party in a bowling alley and I bowled the worst game of my life, a "
    "total of 61. Nobody let me forget it, and someone made a cake with a gutter ball on it.",
    "I spent the afternoon reorganising the spare room into an office with a proper desk and a plant, and I already "
    "feel more like a person who has her life together. The cat has claimed the desk chair.",
    "Finished a big project at work that had dragged on since spring; the new ingestion service went live with no "
    "incidents, and the team celebrated with doughnuts. I slept eleven hours that night.",
    "Jonas's parents invited us for Sunday lunch and his mum taught me her apple cake, which she has apparently "
    "never taught anyone. I'm choosing to read that as a very good sign.",
    "The city put up new bike lanes on our street and now the morning commute is actually pleasant. I've started "
    "cycling to the office twice a week, arriving sweaty but in a very good mood.",
    "Saw an old friend from university on a dating app screenshot Priya sent me, and it took us an hour to stop "
    "laughing. The internet is very small sometimes, and our city is even smaller.",
    "I tried a pottery class with two friends and made a bowl that looks like a collapsed hat. The teacher said it "
    "has 'character', which I think is pottery for 'please don't come back'.",
    "We had a leak in the bathroom ceiling from the flat upstairs and spent the weekend with a bucket and a lot of "
    "towels. The building manager finally came and said it was the cellist's washing machine.",
    "Our friends Tom and Rosa had a baby girl, Inés, and we visited with soup and a tiny knitted hat. She slept the "
    "whole time and Jonas held her like she was made of glass.",
    "I spent Saturday sorting through old photos from Chile and scanning them, which turned into an emotional day. "
    "There's one of my parents at my age that looks almost exactly like me and Jonas.",
    "There was a company-wide outage at work caused by an expired certificate, the most boring possible disaster. "
    "We fixed it in two hours and then spent two days writing the report about it.",
    "Jonas and I spent Saturday at IKEA buying a bookshelf and came home with a bookshelf, two plants, a lamp we "
    "did not need and forty tea lights. Assembly took three hours and one screw is still left over, which is "
    "somehow normal.",
    "The dentist says I grind my teeth at night and wants me to wear a mouth guard, which makes me sound like a "
    "boxer when I talk. Jonas says it's cute; I say he is legally required to say that at this point.",
    "Priya's birthday dinner was at a tiny Ethiopian place with no sign outside, and we ate injera with our hands "
    "for three hours. Eight of us, one very patient waiter, and the best lentils I've had all year.",
    "I got stuck in the office lift for twenty minutes with two people from finance and a delivery man, and by the "
    "end we knew each other's star signs and holiday plans. The building manager brought us biscuits afterwards.",
    "Our internet provider doubled the price without warning, so I spent an evening on comparison websites and "
    "switched to a local co-op that promises real humans on the phone. We'll see whether the promise holds.",
    "Spent the afternoon at the Japanese garden with my friend Marco, who is in town for a week, and we both agreed "
    "it is the calmest place in the city. Then we ruined it by arguing about the best ramen place for an hour.",
    "Work had a hackathon and my team built a tool that tells you which dashboards nobody has opened in a year. "
    "We didn't win, but the head of engineering asked for it, so we kind of won anyway.",
    "I've been sleeping badly because of the heat, so we bought a fan the size of a jet engine and now the bedroom "
    "sounds like an airport. I sleep through it perfectly, Jonas claims he hears it in his dreams.",
    "Went to a friend's art opening in a converted warehouse; the paintings were huge and mostly orange, the wine "
    "was warm and I met three people who work in data too. The city is small, the industry even smaller.",
    "My mum sent a box from Chile with alfajores, a knitted scarf and a letter that made me cry in the post office "
    "queue. She wrote it by hand, three pages, mostly about the neighbours and the new dog.",
    "The car we share with Jonas's brother needed new brakes, and the mechanic explained it with a diagram on a "
    "napkin that I have kept. It cost more than the car is worth, but we need it for the coast trips.",
    "Our book club-turned-wine club met at my place and nobody had finished the book, so we talked about our jobs "
    "and our parents for three hours instead. Best meeting we've had in months, honestly.",
    "There's a new bakery on the corner that opens at six, and the smell of cardamom buns comes through the window "
    "every morning. I have been three times this week and the woman at the till knows my order.",
    "I finally sorted out the paperwork for my green card renewal, which involved four forms, two photos and a "
    "very long phone call. Jonas made me a cake shaped like a stamp to celebrate, which was very nerdy of him.",
    "Went to a work friend's wedding in a barn outside the city; the speeches were long, the band was great, and "
    "I danced with a ninety-year-old grandfather who was better than anyone else on the floor.",
    "I signed up for a free online course on statistics to refresh the maths I haven't used since university. The "
    "first lecture made me feel very old and slightly clever, which seems like the right mix.",
    "A raccoon got into the recycling bins of the whole building last night and left a trail of yoghurt pots down "
    "the stairs. Everybody in the group chat has a theory, and the cellist upstairs has named him Gerald.",
    "The heatwave broke with a thunderstorm at midnight and half the street came out onto their balconies to watch "
    "it. Someone started clapping at the first big thunderclap and then everyone joined in.",
    "I spent the evening helping Jonas grade lab reports on acids and bases because he was behind, and now I know "
    "more about titration than I ever wanted to. The students' drawings of beakers are very creative.",
    "My favourite coffee place closed after eleven years and the owner wrote a letter on the door thanking "
    "everyone by name, including 'the woman with the green bike', which I'm fairly sure is me.",
    "Had a long video call with my old flatmate Elena in Madrid, who is expecting twins in the spring. She is "
    "calm about it in a way I find deeply suspicious, and she wants me to be a godmother.",
    "We went to a pumpkin patch with Priya and her nephews and came home with five pumpkins, three of which are "
    "already starting to sag on the doorstep. The boys carved one into something they swear is a dinosaur.",
    "The team offsite was a day of workshops about 'alignment', and the best part was the sandwich lunch. I did "
    "learn that my manager used to be a professional ballet dancer, which explains her posture.",
    "Jonas caught the flu from school and spent four days on the sofa, so I became a nurse, a cook and the person "
    "who finds the remote. He's better now and very grateful, which I plan to use wisely.",
    "I walked the whole length of the waterfront on Sunday listening to a podcast about the history of salt, which "
    "was unexpectedly gripping. I now know far too much about medieval tax on salt.",
]
# A week at work, told in passing, as the weeks between the news are.
WORK_WEEK = [
    ("the billing pipeline", "a partner changed their file format without telling anyone", "I'm tired but it works"),
    ("the sensor dashboard", "the charts kept timing out on the big accounts", "quietly proud of the fix"),
    ("the warehouse migration", "half the tables had no owner", "ready for the weekend"),
    ("the alerting rules", "we had forty alerts that nobody ever read", "much calmer on call now"),
    ("the data contracts", "two teams disagreed about what a customer is", "philosophy was not on my bingo card"),
    ("the nightly backfill", "it ran for fourteen hours instead of four", "it runs in three hours now"),
    ("the new intern's onboarding", "the setup guide was three years out of date", "she's great, I'm happy"),
    ("the cost review", "one forgotten test cluster cost more than my salary", "finance is very happy with me"),
]


def work_week(session: int) -> str:
    what, _, _ = WORK_WEEK[session % len(WORK_WEEK)]
    _, trouble, _ = WORK_WEEK[(session + session // len(WORK_WEEK)) % len(WORK_WEEK)]
    _, _, mood = WORK_WEEK[(3 * session + 1) % len(WORK_WEEK)]
    return (
        f"Work this week (sprint {session + 1} of the year): mostly {what}. The hard part was that {trouble}, which "
        f"took two days of meetings and one very long afternoon with the logs to untangle. Anyway, {mood}."
    )


def told(session: int) -> list[dict[str, Any]]:
    """What the user said in a session, as the calling model stores it: the key facts, the patterns, a week at
    work, and the rest of the week's news until the session holds PER_SESSION memories."""
    items = [dict(fact) for fact in FACTS.get(session, [])]
    items += [{"content": topic.told[session]} for topic in TOPICS if session in topic.told]
    items += [{"content": work_week(session)}]
    items += [{"content": news} for news in NEWS[session]]
    return [{**item, "said_at": f"{day(session)}T19:00:00Z"} for item in items]


def _news() -> list[list[str]]:
    """CHATTER shared out over the sessions in order, each up to PER_SESSION memories."""
    left = iter(CHATTER)
    shares: list[list[str]] = []
    for session in range(SESSIONS):
        said = len(FACTS.get(session, [])) + sum(session in topic.told for topic in TOPICS) + 1
        shares.append([news for _ in range(PER_SESSION - said) if (news := next(left, None))])
    return shares


NEWS = _news()


def lines(task: str, kind: str) -> list[tuple[str, str]]:
    """(alias, line) of a reflection task's memory (m) or trait (t) lines."""
    return [(m.group(1), line) for line in task.splitlines() if (m := re.match(rf"\[({kind}\d+)\]", line))]


def calling_model(task: str) -> dict[str, Any]:
    """The calling model's reflection: a behaviour when a pattern first shows, a reinforcement (at its topic's grade)
    each time its evidence shows again."""
    memories, traits = lines(task, "m"), lines(task, "t")
    new: list[dict[str, Any]] = []
    reinforcements: list[dict[str, Any]] = []
    for topic in TOPICS:
        evidence = [alias for alias, line in memories if topic.evidence.lower() in line.lower()]
        if not evidence:
            continue
        trait = next((alias for alias, line in traits if topic.trait in line), None)
        if trait is None:
            new.append({"content": topic.trait, "evidence_ids": evidence, "confidence": 0.5, "context": "personal"})
        else:
            reinforcements.append({"trait_id": trait, "new_evidence_ids": evidence, "quality_grade": topic.grade})
        if topic is TOPICS[0]:  # the climbing is evidence for what it was upgraded into too
            reinforcements += [
                {"trait_id": alias, "new_evidence_ids": evidence, "quality_grade": topic.grade}
                for alias, line in traits
                if any(content in line for _, _, _, content in UPGRADES)
            ]
    return answer(new_behaviors=new, reinforcements=reinforcements, upgrades=upgrades(traits))


# What the calling model concludes of the climbing once it is settled: a preference, then a core value that says
# what it explains — core is only ever an upgrade's (issue 61).
UPGRADES = (
    ("behavior", TOPICS[0].trait, "preference", "Prefers hard physical challenges shared with friends"),
    (
        "preference",
        "Prefers hard physical challenges shared with friends",
        "core",
        "Values growth through physical challenge; it explains the bouldering, the early runs and the hard trips",
    ),
)


def upgrades(traits: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The furthest upgrade of UPGRADES whose source trait the task shows established."""
    for subtype, source, into, content in reversed(UPGRADES):
        found = [
            alias for alias, line in traits if "[established " in line and f", {subtype}," in line and source in line
        ]
        if found:
            why = f"{content}: it explains the preferences behind it"
            return [{"from_trait_ids": found, "new_content": content, "new_subtype": into, "reasoning": why}]
    return []


async def tell_the_year(client: Client, clock: Clock) -> int:
    """The 29 sessions, each stored and then reflected on; the number of memories stored."""
    stored = 0
    for session in range(SESSIONS):
        clock.now += timedelta(minutes=1)  # what is stored after a reflection is new to the next one
        items = told(session)
        stored += (await call(client, "remember_many", items=items))["created"]
        out = await call(client, "reflect", force=True)
        while out.get("task_id"):
            out = await call(client, "reflect", task_id=out["task_id"], answer=calling_model(out["task"]))
    return stored


def picture(profile: str, traits: list[str]) -> dict[str, Any]:
    """What a model that reads only the profile learns: the established and core traits and key facts it shows, and
    what it costs."""
    return {
        "traits_shown": sum(trait in profile for trait in traits),
        "traits": len(traits),
        "key_facts_shown": sum(words in profile for words in KEY_FACTS.values()),
        "key_facts": len(KEY_FACTS),
        "missing": [name for name, words in KEY_FACTS.items() if words not in profile],
        "tokens": estimate_tokens(profile),
    }


async def test_a_year_of_chat_keeps_every_settled_trait_and_key_fact_within_the_budget(settings_factory):
    """Before issue 61's change (a 1,000-token budget spent by shares of lines, lines up to 300 characters) this
    profile showed 2 of the 9 settled traits and 10 of the 16 key facts in 992 tokens; every trait and every fact
    needs about 1,400 tokens of statement lines, and PROFILE_TOKENS was chosen on it."""
    clock = Clock(NOW)
    async with connect(settings_factory(llm="host"), clock) as (client, _):
        stored = await tell_the_year(client, clock)
        settled = await call(client, "get_user_traits", min_stage="established")
        profile = await read_profile(client)
        tool = await client.call_tool("get_profile", {})
    # A trait an upgrade restates is not shown again beside what it was upgraded into (issue 42).
    restated = {source for _, source, _, _ in UPGRADES}
    traits = [t["content"] for t in settled["traits"] if t["content"] not in restated]
    seen = picture(profile, traits)
    print(json.dumps(seen))
    lengths = [len(str(item["content"])) for session in range(SESSIONS) for item in told(session)]
    assert stored >= 150 and sum(lengths) / len(lengths) >= 200 and sum(200 <= n <= 300 for n in lengths) >= 80, lengths
    stages = {t["stage"] for t in settled["traits"]}
    # The nine patterns settle, and the climbing is upgraded into a preference, then a core value (UPGRADES).
    assert len(settled["traits"]) == 11 and stages == {"core", "established"}, settled  # the lifecycle made both
    assert seen["traits_shown"] == seen["traits"], (seen, profile)
    assert seen["key_facts_shown"] == seen["key_facts"], (seen, profile)
    assert seen["tokens"] <= PROFILE_TOKENS, seen
    assert tool.content[0].text == profile
    core, established = section(profile, "Core traits"), section(profile, "Established traits")
    for t in (t for t in settled["traits"] if t["content"] not in restated):
        assert t["content"] in (core if t["stage"] == "core" else established), (t, profile)
    # A profile line states a fact, it is not the memory whole: a long memory shows the sentence that holds the fact
    # it is shown for, cut within LINE_CHARS, with its short id.
    assert re.search(r"^- \[[^]]*, origin\] «… I'm from Valparaíso originally, .* …» \([0-9a-f]{8}\)$", profile, re.M)
    quoted = re.findall(r"^- .*?«(.*)» \([0-9a-f]{8}\)$", profile, re.M)
    assert len(quoted) >= 20 and all(len(words) <= LINE_CHARS + 2 for words in quoted), profile
    assert re.search(r"^\(\d+ more not shown here — \d+ memories: recall finds them", profile, re.M), profile
