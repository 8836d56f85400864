"""The Chinese lines of the synthetic LoCoMo-layout set (see make_synthetic.py, `--lang zh`).

Colloquial Mandarin chat between friends. Speakers, pets and siblings have names in Latin letters
inside the Chinese text, as in bilingual or translated chat; cities, countries, food and books are
Chinese. Questions paraphrase what was said (宠物 for 猫, 搬去 for 搬到, 兄弟姐妹 for 弟弟) and ask
"什么时候…" about dated episodes told once.
"""

from __future__ import annotations

from datetime import datetime

from bench.make_synthetic import Corpus, asker

FILLER = [
    "哈哈，这周听起来够热闹的！",
    "哦不错，多跟我说说。",
    "我懂你的意思。",
    "太酷了，真替你高兴。",
    "话说你最近怎么样？",
    "我也是，最近忙死了。",
    "哇，完全没想到。",
    "谢谢关心，挺感动的。",
    "改天再好好聊！",
    "听起来不错。",
    "是啊，最近天气也怪怪的。",
    "这点我完全同意。",
    "那一定很不容易吧。",
    "你总能看到事情好的一面。",
    "哈，经典！",
    "不会吧，真的假的？",
    "真不敢相信今年过得这么快。",
    "这让我想起一件好笑的事。",
    "真心为你高兴。",
    "我一直想问你这个来着。",
    "好吧，笑死我了。",
    "希望你那边早点忙完。",
    "你的生活都可以写本书了。",
    "有道理！",
    "我帮你祈祷一下。",
    "有结果了告诉我。",
    "好久没这样聊天了。",
    "今天有点累，回得慢别介意。",
    "说得好。",
    "老样子，老样子。",
]
TIMES = ["昨天", "上周", "今天早上", "两天前", "上周末", "周日", "昨晚", "前几天", "今天早些时候", "上个月"]
ACTIVITIES = [
    "我把厨房彻底打扫了一遍",
    "我一口气追完了一部犯罪剧",
    "我去逛了农贸市场",
    "我修好了漏水的水龙头",
    "我碰到了一个老同学",
    "我去市中心试了一家新开的面包店",
    "我被雨淋成了落汤鸡",
    "我把衣柜重新整理了一遍",
    "我去参加了一个生日派对",
    "我终于给银行打了电话",
    "我把走廊刷了一遍漆",
    "我帮邻居搬了一张沙发",
    "我烤了香蕉面包",
    "我去逛了一个小博物馆",
    "我拼了好几个小时的拼图",
    "我去看了牙",
    "我一觉睡到中午",
    "我把客厅重新布置了一下",
    "我去酒吧参加了知识竞赛",
    "我沿着河边散了很久的步",
]
COMMENTS = ["", "，挺好的", "，真是忙的一天", "，说实话累坏了", "，特别放松", "，不是个好主意", "，正是我需要的"]
PET_ACTIONS = [
    "把桌上的杯子碰掉了",
    "学会了一个新把戏",
    "偷吃了我半个三明治",
    "躲到床底下去了",
    "早上五点就把我吵醒了",
    "见了邻居家的小孩",
    "咬坏了一根充电线",
    "特别黏人",
    "叼走了一只袜子",
    "晒了好几个小时太阳",
]
PET_WHEN = ["昨天", "昨晚", "今天早上", "今天又", "周日"]
TOPICAL = [
    "{pet_name}又咬断了一根充电线，可看到它那张脸我就气不起来。",
    "邻居家的{pet}又跑出来了，我追了它半条街。",
    "你觉得{pet}白天我上班的时候会不会孤单？",
    "{pet_name}最近老爱睡在我的笔记本键盘上，笑死。",
    "最近工作好忙，这周开不完的会。",
    "我们经理老是临时要报告。",
    "我在考虑要不要申请加薪，祝我好运吧。",
    "新来的同事话特别多。",
    "{city}到处都是好吃的小吃摊。",
    "{city}的交通比我想的还堵。",
    "箱子还没拆完，感觉永远拆不完。",
    "我终于在新家附近找到一家不错的咖啡店。",
    "我最近在看{trip}的资料，照片美哭了。",
    "这个季节机票好贵。",
    "我{sibling_word}{sib}居然找我请教理财的事。",
    "家庭聚餐总是乱哄哄的，但我很喜欢。",
    "我试了个新的{food}做法，结果没什么味道。",
    "天天做饭太累了，我干脆点了披萨。",
    "今天听了一张很棒的爵士专辑。",
    "我想培养个新爱好，最好是有创意一点的。",
    "你平时去看现场演出吗？",
    "我的车在高速上有怪声，就送去修了。",
    "我真该多看点书了，没读的书越堆越高。",
    "我在努力吃得健康点，少吃零食多吃蔬菜。",
    "{pet_name}昨天学会了一个新把戏，我超骄傲。",
    "上周{pet_name}偷吃了我半个三明治！",
    "今天早上我带{pet_name}去公园，人超多。",
    "上周末我开着新车去了海边。",
    "两周前我把车里里外外洗了一遍，现在又脏了。",
    "我{sibling_word}{sib}上个月来看我，我们一起做了{food}。",
    "昨天我在{city}逛了好几个小时，越来越喜欢这里了。",
    "我有个朋友去年去了{trip}，超级喜欢。",
    "昨晚我练了一个小时，邻居肯定恨死我了。",
    "我昨天开始看一本新书，第一章有点慢。",
]
PEOPLE = [
    # name, pet kind, pet name, job, hobby, city, sibling, sibling job, trip, food, instrument, car, allergy, book
    (
        "Lily",
        "狗",
        "Biscuit",
        "兽医护士",
        "攀岩",
        "成都",
        "Tom",
        "消防员",
        "冰岛",
        "拉面",
        "大提琴",
        "斯巴鲁",
        "花生",
        "三体",
    ),
    (
        "Kevin",
        "猫",
        "Pixel",
        "面包店老板",
        "下象棋",
        "杭州",
        "Mia",
        "药剂师",
        "日本",
        "西班牙海鲜饭",
        "小号",
        "小电驴",
        "海鲜",
        "活着",
    ),
    (
        "Chen Jing",
        "鹦鹉",
        "Mango",
        "软件测试员",
        "跑马拉松",
        "深圳",
        "Leo",
        "建筑师",
        "秘鲁",
        "饺子",
        "小提琴",
        "普锐斯",
        "麸质",
        "围城",
    ),
    (
        "Amy",
        "兔子",
        "Clover",
        "高中老师",
        "做陶艺",
        "厦门",
        "Sam",
        "飞行员",
        "摩洛哥",
        "墨西哥卷饼",
        "架子鼓",
        "皮卡",
        "猫毛",
        "平凡的世界",
    ),
    (
        "Eric",
        "乌龟",
        "Sheldon",
        "土木工程师",
        "摄影",
        "南京",
        "Ada",
        "护士",
        "挪威",
        "煲仔饭",
        "萨克斯",
        "卡罗拉",
        "牛奶",
        "红楼梦",
    ),
    (
        "Fiona",
        "马",
        "Storm",
        "海洋生物学家",
        "帆船",
        "青岛",
        "Nick",
        "厨师",
        "智利",
        "三文鱼",
        "钢琴",
        "沃尔沃",
        "花粉",
        "百年孤独",
    ),
    (
        "Gary",
        "雪貂",
        "Noodle",
        "电工",
        "观鸟",
        "昆明",
        "June",
        "牙医",
        "越南",
        "越南河粉",
        "班卓琴",
        "面包车",
        "蜂蛰",
        "白鹿原",
    ),
    (
        "Hannah",
        "仓鼠",
        "Mochi",
        "平面设计师",
        "越野跑",
        "大连",
        "Ken",
        "律师",
        "希腊",
        "寿司",
        "长笛",
        "Mini Cooper",
        "芝麻",
        "挪威的森林",
    ),
]
BROTHERS = {"Tom", "Sam", "Nick", "Leo", "Ken"}


def fmt(dt: datetime) -> str:
    return f"{dt.year}年{dt.month}月{dt.day}日 {dt.hour}:{dt.minute:02d}"


def facts(p: tuple) -> list[tuple[int, str, str]]:
    """(session index, key, text) of what a speaker tells about themselves."""
    _, pet, pet_name, job, hobby, city, sib, sib_job, trip, food, instrument, car, allergy, book = p
    sibling = (
        f"我弟弟{sib}刚找到一份{sib_job}的工作，全家都为他骄傲。"
        if sib in BROTHERS
        else f"我妹妹{sib}刚当上了{sib_job}，我们都好骄傲。"
    )
    return [
        (0, "pet", f"我们上周末终于领养了一只{pet}，给它取名叫{pet_name}！"),
        (1, "job", f"当{job}让我每天都闲不下来，没有哪两天是一样的。"),
        (2, "hobby", f"整个星期六我都跟几个朋友在{hobby}，累是累，但是很开心。"),
        (4, "move", f"大新闻：我昨天搬到{city}了，公寓里还堆满了箱子。"),
        (5, "sibling", sibling),
        (6, "trip", f"我打算下个月去{trip}玩两个星期，机票都已经订好了。"),
        (7, "car", f"两天前我把旧车卖了，买了一辆二手{car}。"),
        (8, "pet_vet", f"{pet_name}今天去看兽医了，没什么大问题，就是有点小感染。"),
        (9, "food", f"我晚饭又做了{food}，说真的这是我最爱吃的东西。"),
        (10, "allergy", f"原来我对{allergy}过敏，医生叫我千万离它远点。"),
        (11, "instrument", f"我开始上{instrument}课了，老师说我进步挺快的。"),
        (13, "trip_back", f"我从{trip}回来啦！那边的风景简直不可思议。"),
        (15, "book", f"我刚看完《{book}》，根本停不下来。"),
    ]


def questions(p: tuple, other: tuple, t: dict[str, str]) -> list[dict]:
    name, pet, pet_name, job, _, city, _, sib_job, trip, food, instrument, car, _, book = p

    q = asker(name, t)

    return [
        q(f"{name}的宠物叫啥名字？", pet_name, ["pet"], 4),
        q(f"{name}是干什么工作的？", job, ["job"], 4),
        q(f"{name}在学哪种乐器？", instrument, ["instrument"], 4),
        q(f"{name}现在开的是什么车？", car, ["car"], 4),
        q(f"{name}最近读了哪本小说？", book, ["book"], 4),
        q(f"{name}什么时候搬去{city}的？", "第五次聊天的前一天", ["move"], 2),
        q(f"{name}是什么时候养的{pet_name}？", "第一次聊天前的那个周末", ["pet"], 2),
        q(f"{name}什么时候去{trip}？", "第七次聊天之后的那个月", ["trip"], 2),
        q(f"{name}现在这辆车是什么时候买的？", "第八次聊天的两天前", ["car"], 2),
        q(f"{name}的{pet}为啥要看医生？", "有点小感染", ["pet_vet", "pet"], 1),
        q(f"{name}觉得自己去玩的那个国家怎么样？", "风景不可思议", ["trip_back", "trip"], 1),
        q(f"{name}的兄弟姐妹开始做什么职业了？", sib_job, ["sibling"], 1),
        q(f"{name}愿不愿意跟朋友出去累一整天？", "愿意", ["hobby"], 3),
        q(f"给{name}做点什么吃的能让他心情变好？", food, ["food"], 3),
        q(f"请{name}吃饭的时候要不要注意他的饮食？", "要", ["allergy"], 3),
        q(f"{other[0]}的{pet}叫什么名字？", "没提到", ["pet"], 5),
        q(f"{other[0]}是什么时候搬到{city}的？", "没提到", ["move"], 5),
        q(f"{other[0]}觉得{instrument}课怎么样？", "没提到", ["instrument"], 5),
        # Single-hop questions that share no word with their evidence (category 6: see bench/quality.py).
        q(f"{name}家里有什么小动物？", pet, ["pet"], 6),
        q(f"{name}靠什么谋生？", job, ["job"], 6),
        q(f"{name}现在定居在哪儿？", city, ["move"], 6),
        q(f"{name}平常用什么代步？", car, ["car"], 6),
        q(f"{name}有哪些忌口？", "对过敏的东西忌口", ["allergy"], 6),
        q(f"{name}闲暇时练什么？", instrument, ["instrument"], 6),
    ]


CHINESE = Corpus(
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
    lambda when, what, comment: f"{when}{what}{comment}。",
    lambda name, action, when: f"{name}{when}{action}。",
    ("弟弟", "妹妹"),
    "synthetic_locomo_zh.json",
)
