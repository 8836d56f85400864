"""Chinese: the one home of its rules (dates dateparser does not read, plans, procedures, categories).

Chinese marks time with words, not tense: 了/过/已经 after a verb tell of the past, 打算/计划/准备/
要/将/想 point forward, and the date words (昨天, 上周三, 下个月) say the rest. Measured against
dateparser (base 2026-11-22): it reads 昨天, 前天, 上个月, 下个月, 去年 and 2024年3月3日 (used for
them, see dateparser_phrases.py) but returns None for 上周三, 下周五, 三天后, 3月初 and 十二月中旬,
which are read here.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
NUMBER = r"(?:\d{1,4}|[零〇一二两三四五六七八九十百]{1,4})"


def number(text: str) -> int:
    """An Arabic or Chinese numeral up to the hundreds (三 → 3, 十二 → 12, 二十五 → 25, 两百 → 200)."""
    if text.isdigit():
        return int(text)
    total, current = 0, 0
    for ch in text:
        if ch in _DIGITS:
            current = _DIGITS[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
    return total + current


_WEEKDAY = {
    "一": 0,
    "二": 1,
    "三": 2,
    "四": 3,
    "五": 4,
    "六": 5,
    "日": 6,
    "天": 6,
    "末": 5,
    "1": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "6": 5,
    "7": 6,
}
# A week named alone (这周, 下个星期): its Monday.
_WEEK_ALONE = re.compile(r"(?P<rel>上上|下下|上|下|这|本)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末1-7])")
_WEEK_DAY = re.compile(r"(?P<rel>上上|下下|上|下|这|本)?(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天末1-7])")
_UNIT_DAYS = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7}
_SPAN = re.compile(rf"(?P<n>{NUMBER}|半)(?:个)?(?P<unit>天|日|周|星期|礼拜|月|年)(?P<dir>后|以后|之后|前|以前|之前)")
_IN_SPAN = re.compile(rf"过(?P<n>{NUMBER})(?:个)?(?P<unit>天|周|星期|礼拜|月)")
_MONTH_PART = re.compile(rf"(?P<year>去年|今年|明年|\d{{4}}年)?(?P<m>{NUMBER})月(?P<part>初|上旬|中旬|中|下旬|底|末)")
_MONTH_DAY = re.compile(rf"(?P<year>去年|今年|明年|前年|\d{{4}}年)?(?P<m>{NUMBER})月(?P<d>{NUMBER})[日号]?")
# A month with no day: 2025年3月, 去年十月, 三月 (the 1st; not 3月初 or 3月5日, read above).
_MONTH = re.compile(
    rf"(?P<year>前年|去年|今年|明年|\d{{4}}年)?(?P<m>{NUMBER})月份?(?![初上中下底末日号\d零〇一二两三四五六七八九十])"
)
# A season of a named year: 去年夏天 is the summer of last year (its first day); 夏天 alone is no date.
_SEASON = re.compile(r"(?P<year>前年|去年|今年|明年|\d{4}年)(?P<s>春|夏|秋|冬)(?:天|季)")
_SEASON_START = {"春": 3, "夏": 6, "秋": 9, "冬": 12}
# A day of a month named relative to this one: 下个月15号.
_REL_MONTH_DAY = re.compile(rf"(?P<rel>上|下|这|本)(?:个|一个)?月(?P<d>{NUMBER})[日号]")
# A year named relative to this one, alone (前年我在深圳工作): its first day.
_REL_YEAR = re.compile(r"(?:前年|去年|今年|明年)(?![\d零〇一二两三四五六七八九十春夏秋冬])")
# A year alone (2015年我大学毕业), not one that starts a month (2025年3月) or an offset (2023年的四年前).
_YEAR = re.compile(r"(?P<y>(?:19|20)\d{2})年(?![\d零〇一二两三四五六七八九十前后以之的初底中])")
# An offset from a year: 2023年的四年前 is 2019; from anything else (婚礼两周后) there is no date to count from.
_FROM_YEAR = re.compile(rf"(?P<y>(?:19|20)\d{{2}})年的?(?P<n>{NUMBER})年(?P<dir>前|后|以前|以后|之前|之后)")
# What may stand right before an offset counted from today ("我三天后", "大概两周前"); any other word there
# is the anchor it counts from ("婚礼两周后").
_FROM_TODAY = set("我你他她它们咱就在约概大再过还已，。,.;；:：!！?？ \t\n") | {""}
_DAY_WORDS = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "明天": 1, "后天": 2, "大后天": 3}
_DAY_WORD = re.compile("|".join(sorted(_DAY_WORDS, key=len, reverse=True)))
_PART_DAY = {"初": 1, "上旬": 1, "中旬": 11, "中": 11, "下旬": 21, "底": 21, "末": 21}
_RELATIVE_YEAR = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}


def _add_months(day: datetime, months: int) -> datetime:
    index = day.year * 12 + day.month - 1 + months
    return day.replace(year=index // 12, month=index % 12 + 1, day=1)


def _year(text: str | None, local_now: datetime) -> int | None:
    if not text:
        return None
    return local_now.year + _RELATIVE_YEAR[text] if text in _RELATIVE_YEAR else int(text[:4])


def _day_of_part(m: re.Match[str]) -> int:
    return _PART_DAY[m["part"]]


def _day_of_month(m: re.Match[str]) -> int:
    return number(m["d"])


def _first_day(_: re.Match[str]) -> int:
    return 1


Found = list[tuple[datetime, str, int]]  # (midnight of the day in the user's zone, phrase, start)


def dates(content: str, local_now: datetime, prefer_past: bool) -> Found:
    """Every date this module reads in `content`."""
    today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    return [
        *_weekdays(content, today, prefer_past),
        *_offsets(content, today),
        *_named(content, today),
        *_months(content, today, prefer_past),
    ]


def _weekdays(content: str, today: datetime, prefer_past: bool) -> Found:
    found: Found = []
    for m in _WEEK_DAY.finditer(content):
        weekday = _WEEKDAY[m["day"]]
        monday = today - timedelta(days=today.weekday())
        shift = {"上上": -14, "上": -7, "下": 7, "下下": 14}.get(m["rel"] or "", 0)
        day = monday + timedelta(days=shift + weekday)
        if not m["rel"]:  # a bare 周三: the coming one in a plan, the last one in the past
            if prefer_past and day > today:
                day -= timedelta(days=7)
            elif not prefer_past and day < today:
                day += timedelta(days=7)
        found.append((day, m.group(0), m.start()))
    for m in _WEEK_ALONE.finditer(content):
        monday = today - timedelta(days=today.weekday())
        shift = {"上上": -14, "上": -7, "下": 7, "下下": 14}.get(m["rel"], 0)
        found.append((monday + timedelta(days=shift), m.group(0), m.start()))
    return found


def _offsets(content: str, today: datetime) -> Found:
    """Offsets from a year (2023年的四年前) and from today (三天后, 过两周); none from anything else."""
    found: Found = []
    anchors = [(m.start(), m.end()) for m in _FROM_YEAR.finditer(content)]
    for m in _FROM_YEAR.finditer(content):
        years = number(m["n"]) * (-1 if "前" in m["dir"] else 1)
        found.append((today.replace(year=int(m["y"]) + years, month=1, day=1), m.group(0), m.start()))
    for m in _SPAN.finditer(content):
        anchored = any(a <= m.start() < b for a, b in anchors)
        if anchored or content[max(0, m.start() - 1) : m.start()] not in _FROM_TODAY:
            continue
        n = 0.5 if m["n"] == "半" else number(m["n"])
        sign = -1 if "前" in m["dir"] else 1
        if m["unit"] in _UNIT_DAYS:
            day = today + timedelta(days=sign * n * _UNIT_DAYS[m["unit"]])
        else:
            months = round(n * (12 if m["unit"] == "年" else 1))
            day = _add_months(today, sign * months).replace(day=min(today.day, 28))
        found.append((day, m.group(0), m.start()))
    for m in _IN_SPAN.finditer(content):
        n = number(m["n"])
        day = (
            today + timedelta(days=n * _UNIT_DAYS[m["unit"]])
            if m["unit"] in _UNIT_DAYS
            else _add_months(today, n).replace(day=min(today.day, 28))
        )
        found.append((day, m.group(0), m.start()))
    return found


def _named(content: str, today: datetime) -> Found:
    """Day words (昨天), seasons of a year (去年夏天), a day of a relative month (下个月15号), a year alone."""
    found: Found = [
        (today + timedelta(days=_DAY_WORDS[m.group(0)]), m.group(0), m.start()) for m in _DAY_WORD.finditer(content)
    ]
    for m in _SEASON.finditer(content):
        year = _year(m["year"], today) or today.year
        found.append((today.replace(year=year, month=_SEASON_START[m["s"]], day=1), m.group(0), m.start()))
    for m in _REL_MONTH_DAY.finditer(content):
        try:
            day = _add_months(today, {"上": -1, "下": 1}.get(m["rel"], 0)).replace(day=number(m["d"]))
        except ValueError:
            continue
        found.append((day, m.group(0), m.start()))
    found += [(today.replace(year=int(m["y"]), month=1, day=1), m.group(0), m.start()) for m in _YEAR.finditer(content)]
    found += [
        (today.replace(year=today.year + _RELATIVE_YEAR[m.group(0)], month=1, day=1), m.group(0), m.start())
        for m in _REL_YEAR.finditer(content)
    ]
    return found


def _months(content: str, today: datetime, prefer_past: bool) -> Found:
    """Months with a part (3月初), a day (3月5日) or alone (2025年3月, 去年十月)."""
    found: Found = []
    for pattern, day_of in ((_MONTH_PART, _day_of_part), (_MONTH_DAY, _day_of_month), (_MONTH, _first_day)):
        for m in pattern.finditer(content):
            month, year = number(m["m"]), _year(m["year"], today)
            if not 1 <= month <= 12:
                continue
            try:
                day = today.replace(year=year or today.year, month=month, day=day_of(m))
            except ValueError:
                continue
            if year is None and prefer_past and day > today:
                day = day.replace(year=day.year - 1)
            elif year is None and not prefer_past and day < today.replace(day=1):
                day = day.replace(year=day.year + 1)
            found.append((day, m.group(0), m.start()))
    return found


# Mood cues. 要 is "will / want to" except inside 需要, 重要, 主要, 只要, 要是, 要求 and the like.
PLAN = re.compile(
    r"打算|计划|准备(?!了)|将要|将会|(?<![需重主只不想])要(?![是求么紧])"
    r"|(?<![即必])将(?=[要会在去])|想要?去|会去|提醒我|下(?:个|一个)?(?:周|星期|礼拜|月)|明天|后天|明年|下次|以后|即将"
    r"|有一天|总有一天|将来|某天"
)
# What was booked or arranged is ahead, whatever the aspect (我订了周五的位子, 我周四约了牙医).
BOOKED = re.compile(r"订了|预订|预约|约了|挂了?号|订好")
PAST = re.compile(
    r"了|过(?![来去年])|已经|曾经|刚刚?|昨天|昨晚|前天|上(?:个|一个)?(?:周|星期|礼拜|月)|去年|前年"
    r"|\d+年前|那时"
)
REQUEST = re.compile(r"[?？]\s*$|[吗呢]\s*[。！!]?\s*$|^(?:请|麻烦|帮我|你能|你可以|能不能|可不可以|告诉我|解释)")
CLAUSES = re.compile(r"[，,；;：:。！!？?\n]")
FIRST_PERSON = re.compile(r"我|咱们")
# Questions about what is ahead: "这周有什么安排", "接下来我要做什么", "下个月有什么计划".
ASKS_AHEAD = re.compile(
    r"安排|计划|打算|日程|行程|接下来|即将|快要|要做什么|有什么事|下(?:周|星期|个月|礼拜)|明天|后天"
)
# Habits: "每周四", "每天早上", "每逢周末" — a rule, not a date.
RECURRING = re.compile(r"每(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]?|每(?:天|日|晚|早|月|年)|每逢")
# A state that began then and holds now: "seit Oktober", "从十月开始", "desde octubre", "depuis octobre".
SINCE = re.compile(r"从[^，。！？]{0,12}(?:开始|起)|自从|以来")
ASKS_WHEN = re.compile(r"什么时候|何时|哪(?:一)?(?:天|年|月|周|个月|一年)|几月|几号|多久以前|多久前|啥时候")
# Steps: 首先…然后…最后, 先…再/然后…, 第一步…第二步… (先 not inside 先生, 原先, 事先, 首先 handled first).
FIRST_STEP = re.compile(r"首先|第一步|(?<![原事预首优领祖])先(?!生|前)")
NEXT_STEP = re.compile(
    r"[，,；;。]?\s*(?:然后|接着|之后|随后|其次|再(?!见|次)|最后|第[二三四五六七八九十]步)"
    r"[，,：:]?\s*"
)
IMPORTANT = re.compile(r"重要|千万|一定要记住|别忘|不要忘|务必|紧急|过敏")
CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    ("workflow", re.compile(r"流程|步骤|部署|工作流|惯例|例行")),
    ("health", re.compile(r"医生|牙医|过敏|药|生病|医院|饮食|症状|受伤|看病|体检|治疗")),
    (
        "relationship",
        re.compile(
            r"妻子|老婆|丈夫|老公|女朋友|男朋友|女友|男友|妈妈|爸爸|母亲|父亲|姐姐|妹妹"
            r"|哥哥|弟弟|女儿|儿子|朋友|孩子|家人|家里人"
        ),
    ),
    ("work", re.compile(r"工作|上班|公司|老板|同事|经理|项目|开会|会议|客户|职业|出差|加班|跳槽|创业")),
    ("location", re.compile(r"住在|搬到|搬家|搬去|位于|老家|地址|城市|国家|小区")),
    ("skill", re.compile(r"会说|擅长|精通|学习|学会|在学|编程|认证|练习|考试")),
    ("preference", re.compile(r"喜欢|爱吃|爱喝|最爱|热爱|偏好|讨厌|受不了|享受|迷上")),
]

# Single-valued facts about now (reading/slots.py): where one lives, works; relationship status.
_REL = r"我(?P<rel>姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|老婆|老公|女朋友|男朋友|女儿|儿子)"
_PLACE = r"(?P<value>(?!家|这里|那里|公司)[\u4e00-\u9fffA-Za-z]{1,12}?)"
_STOP = r"(?=[，。,.！!；;]|$|了|啦|呢|住|生活|附近)"
SLOTS = [
    # Who does the user's hair (issue 52): "现在是小美给我剪头发了".
    (
        "hairdresser",
        re.compile(r"(?:现在|目前)?(?:是)?(?P<value>[\u4e00-\u9fff]{1,4}?)(?:在)?给我(?:剪头发|剪发|理发)"),
    ),
    ("home", re.compile(rf"(?:我|{_REL})(?:现在|目前|已经)?(?:住在|搬到了|搬到|搬去了|搬去){_PLACE}{_STOP}")),
    ("employer", re.compile(rf"(?:我|{_REL})(?:现在|目前)?在{_PLACE}(?:工作|上班)")),
    ("employer", re.compile(rf"我(?:现在|已经)?(?:入职了|加入了|跳槽到了|跳槽到){_PLACE}{_STOP}")),
    ("relationship", re.compile(r"我(?:现在|已经)?(?P<value>单身|结婚了|已婚|订婚了|离婚了)")),
    # "我是成都人", not "我是个很懒的人" / "我是新来的人": a place is two to four characters, no particles.
    ("origin", re.compile(r"我是(?P<value>(?![\u4e00-\u9fff]{0,3}[的个很一新老好这那])[\u4e00-\u9fff]{2,4})人")),
    ("origin", re.compile(rf"我(?:来自|老家在|出生在|出生于){_PLACE}{_STOP}")),
    ("origin", re.compile(rf"我(?:是)?在{_PLACE}(?:长大|出生)")),
    ("name", re.compile(r"我(?:叫|的名字是)(?P<value>[\u4e00-\u9fffA-Za-z]{1,12}?)(?=[，。,.！!；;]|$)")),
    ("person", re.compile(rf"{_REL}(?:叫|名叫)(?P<value>[\u4e00-\u9fffA-Za-z]{{1,12}}?)(?=[，。,.！!；;]|$|在|是|住)")),
]
NOT_NOW = re.compile(r"不|没|以前|之前|曾经|那时|要|打算|准备|想|如果|可能|吗|？|\?")

# Replies to the other speaker (ingestion without a model keeps statements about the user only). "你" alone
# is no sign: "跟你说，我搬到上海了" tells about the user.
REPLY = re.compile(
    r"^(?:我也(?:是|这么(?:想|觉得)|觉得|一样)|我(?:完全|非常|很)?(?:同意|赞同|理解你|懂你|明白你)|我猜|我敢说|我相信你)"
    r"|(?:为|替)你(?:感到)?(?:高兴|开心|骄傲)|祝你|你(?:说得对|太棒|真棒|真厉害|真好)"
)
MINE = re.compile(r"我的|我们的|我家")

# The user speaking of a single-valued fact without a value for now ("我辞职了", "我们分手了"): slots.slot_topic.
SLOT_TOPICS = [
    ("home", re.compile(r"(?:我|我们).{0,8}?(?:住|搬)")),
    ("employer", re.compile(r"(?:我|我们).{0,8}?(?:辞职|离职|跳槽|被裁|不在.{1,12}?(?:工作|上班))")),
    ("relationship", re.compile(r"(?:我|我们).{0,8}?(?:结婚|离婚|分手|单身)")),
]

SLOT_ENDS = [
    ("employer", re.compile(r"我(?:已经|刚|刚刚)?(?:辞职|离职|被裁员?|被开除)")),
    ("relationship", re.compile(r"我们?(?:已经|刚|刚刚)?(?:分手|离婚)")),
]

# Questions about a single-valued fact (reading/slots.asked_slot).
ASKS_SLOT = [
    ("home", re.compile(r"我(?:现在)?住(?:在)?(?:哪|什么地方)|我家在哪")),
    ("employer", re.compile(r"我(?:现在)?在(?:哪|什么公司)(?:里|儿)?(?:工作|上班)")),
    ("relationship", re.compile(r"我(?:结婚了吗|是单身吗)")),
]

# Any attribute named with its one value (reading/slots.py): "我的新车是比亚迪汉", "我现在用的银行是工商银行",
# "我最喜欢的颜色是绿色", "我换了新手机，华为Mate 60", "我把浏览器换成了Firefox", "我妈妈的老板是刘总".
_WHOSE = r"我(?P<rel>姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|老婆|老公|女朋友|男朋友|女儿|儿子|朋友)?"
_OWN = r"(?:的|现在的|目前的|现在用的|目前用的|用的)"
_ATTR = r"(?P<attr>(?![不没以原])[\u4e00-\u9fff]{1,4}?)"
_CN_VALUE = r"(?P<value>[^，。！？、,.!?；;\s不没][^，。！？、,.!?；;]{0,30}?)"
_CN_END = r"(?=[，。！？、,.!?；;]|$|了|啦|呢|吧)"
NAMED = [
    re.compile(
        rf"{_WHOSE}(?:{_OWN}(?:新)?|(?:现在)?(?P<fav>最喜欢的|最爱的)){_ATTR}(?:现在|目前)?是{_CN_VALUE}{_CN_END}"
    ),
    re.compile(
        rf"我(?:刚|已经|最近)?(?:换了|买了)(?:个|一个|一台|一部|一辆|台|部|辆)?(?:新)?{_ATTR}[，,：:]\s*(?:现在)?(?:是|用的是)?{_CN_VALUE}{_CN_END}"
    ),
    re.compile(rf"我(?:刚|已经|最近)?把{_ATTR}换成了?{_CN_VALUE}{_CN_END}"),
]
ATTRIBUTES = {
    "手机": "phone",
    "电话": "phone",
    "车": "car",
    "汽车": "car",
    "健身房": "gym",
    "医生": "doctor",
    "牙医": "dentist",
    "理发师": "hairdresser",
    "发型师": "hairdresser",
    "银行": "bank",
    "电脑": "laptop",
    "笔记本": "laptop",
    "笔记本电脑": "laptop",
    "老板": "boss",
    "领导": "boss",
    "上司": "boss",
    "浏览器": "browser",
    "地址": "address",
    "颜色": "colour",
    "球队": "team",
    "食物": "food",
    "姐姐": "sister",
    "妹妹": "sister",
    "哥哥": "brother",
    "弟弟": "brother",
    "妈妈": "mother",
    "爸爸": "father",
    "老婆": "wife",
    "老公": "husband",
    "女朋友": "girlfriend",
    "男朋友": "boyfriend",
    "女儿": "daughter",
    "儿子": "son",
    "朋友": "friend",
}
# Reported speech, a hypothetical, a request or a dream before the statement (slots.framed).
FRAME = re.compile(
    r"如果|假如|假设|要是|想象|设想|梦见|梦到|做梦|梦里|小说|故事|(?<!我)(?:说|以为|认为|觉得)|帮我|请你|能不能"
)
# Questions that name an attribute: "我的手机是什么", "我开什么车".
ASKS_NAMED = [
    re.compile(r"我(?:现在)?(?:的|用的)(?P<attr>[\u4e00-\u9fff]{1,4}?)(?:是)?(?:什么|哪个|哪家|哪款|谁)"),
    re.compile(r"我(?:现在)?(?:用|开|去|在)(?:的)?(?:是)?(?:什么|哪个|哪家|哪款)(?P<attr>[\u4e00-\u9fff]{1,4})"),
]

# Leaving a value by name (reading/leaving.py, issue 52): "我现在不找张医生了", "我把iPhone换成了华为",
# "我不去一兆韦德了", "退了X的卡", "乐刻不续了", "而不是X"/"不再X".
_OLD = r"(?P<old>[^\s，。,.；;！!？?了的]{1,12}?)"
LEAVING = [
    # The old value named in the reason for a switch: "我已经转到中国联通了，移动太贵".
    re.compile(
        rf"(?:转到|换到|换成|改用)(?:了)?[^，,。]{{1,12}}?(?:了)?[，,]\s*{_OLD}(?:太|很|比较|实在|越来越)(?:贵|差|慢|烂)"
    ),
    # "我不去王医生那儿看牙了": the value before 那儿 and what is done there.
    re.compile(
        rf"(?:我|[，,])(?:现在|已经|早就)?(?:不再|不)(?:去|找|用|在|看)\s*{_OLD}(?:(?:那儿|那里|那边)[^，,。.]{{0,6}}?)?(?:了|，)"
    ),
    # A membership not renewed: "乐刻不续了", "健身房的卡没续".
    re.compile(rf"(?:^|[，,。；;])\s*(?!我){_OLD}(?:的卡|的会员|会员)?(?:不续了|不续费了|没续|没再续|不办了|到期不续)"),
    re.compile(rf"我(?:已经|现在)?把\s*{_OLD}\s*换成了"),
    re.compile(rf"我(?:已经|现在)?把\s*{_OLD}\s*(?:卖了|卖掉了|退了)"),
    re.compile(rf"我(?:已经)?(?:离开了|退了|辞掉了|注销了)\s*{_OLD}(?:[，。,.]|$|的)"),
]
INSTEAD = re.compile(rf"(?:而不是|代替了|取代了)\s*{_OLD}(?:[，。,.]|$)")
NOW_WORDS = re.compile(r"现在|如今|目前|已经|不再")
OTHERS = re.compile(
    r"我妈|我爸|妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|朋友|老婆|老公|妻子|丈夫|同事|老板|女儿|儿子|邻居|他|她"
)

# A value's own ending, after it (its first two characters): "小王走了以后", "那家店关门了".
DEPARTED = re.compile(r"[^，,。；;\s]{0,4}?(?:走了|退休了|关门了|不干了|搬走了|离职了)")

# What says the user holds a value (reading/leaving.holds): "我在一兆韦德健身", "我的手机是iPhone 12".
HOLDS = r"(?:在|用|是|去|找|看)"

# A change said by the new value alone (reading/changes.py): a word of change or of now, what makes it no change
# of the one value (an addition, an occasion, a thought), and the words for what a value is for beyond ATTRIBUTES
# (in English, as ATTRIBUTES names it).
CHANGED = re.compile(r"现在|如今|目前|最近|后来|换|改|转到|转去|转网|跳槽|不再|新")
ASIDE = re.compile(r"也|还|偶尔|有时|今天|昨天|今晚|考虑|要不要|打算|想")
DOMAINS = {
    "健身": "gym",
    "锻炼": "gym",
    "医院": "doctor",
    "大夫": "doctor",
    "诊所": "doctor",
    "牙科": "dentist",
    "理发": "hairdresser",
    "头发": "hairdresser",
    "工资卡": "bank",
    "银行卡": "bank",
    "账户": "bank",
    "运营商": "carrier",
    "套餐": "carrier",
    "话费": "carrier",
    "转网": "carrier",
    "携号转网": "carrier",
    "工作": "employer",
    "上班": "employer",
    "公司": "employer",
    "跳槽": "employer",
    "单位": "employer",
    "学校": "school",
    "幼儿园": "school",
    "小学": "school",
    "宽带": "broadband",
    "电费": "energy supplier",
    "保险": "insurance",
    "咖啡": "coffee place",
    "理疗": "physio",
    "心理咨询": "therapist",
    "兽医": "vet",
    "宠物医院": "vet",
}
