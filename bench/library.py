"""A generated local-folder library for benchmarks and tests: 300+ albums, real audio.

Laid out the way the README tells people to add books: one folder per album, one audio
file per episode (``西游记/第01集 猴王出世.mp3``), an optional ``album.json`` carrying the
author, the narrator and the book's names in the other language (``aliases``: 西游记 is also
"Journey to the West", Dracula also 德古拉), and some albums grouped under an author's folder (``金庸/射雕英雄传/…``). The set
holds what makes matching hard: one- and two-character titles (家, 活着, It, Us), a folder
in traditional script (紅樓夢, which people say as 红楼梦), titles with spaces, same-prefix
pairs (水浒传 / 水浒传少儿版, 三体 / 三体2, 三侠五义 / 单田芳 三侠五义), a title that is a
number (1984), English and Chinese titles, and episode counts from 1 to 120.

Three albums are books as bought or ripped, whose episodes are the chapter marks inside a
file (`BOOKS`): "Project Hail Mary" is one M4B of 30 chapters, "长安十二时辰" one M4B of 24
(第一章 巳正 …), and "The Martian" mixes an M4B of 13 chapters ("Sol 6" …) with a plain
MP3, 14 episodes in all. Their chapters are as long as the clip (so seeks of minutes and
intro skips of 30 s land inside one), written by PyAV with `OutputContainer.set_chapters`
from two seconds of a quiet tone AAC-encoded once and muxed again up to the length
(`chapter_book`: the three files, 17 hours of book, take 36 MB and about 8 s to write).

Every other episode is the same short MP3 clip, encoded once with PyAV and hard-linked
(copied where links are impossible), so a library of ~8,000 episodes costs one clip's bytes
and a second or two. `cached_library()` keeps one under ``.state/bench`` keyed by
`VERSION`, the clip length and the albums; `build_library(root)` writes one anywhere
(tests).

    from bench.library import cached_library, ALBUMS
    root = cached_library()          # Path of the library folder
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION = "3"
"""Bump when the albums, their layout or the clip change: the cache key includes it."""

CLIP_SECONDS = 900.0
"""Length of every episode in the cached library: long enough that no episode ends (and
auto-advances) during a turn, and that seeks to minute 10 land inside it."""


@dataclass(frozen=True)
class BookFile:
    """One file of an album of `BOOKS`: `name` with its suffix (.m4b, .mp3), and the
    titles of its chapter marks, one episode each; no chapters: a plain file, one episode
    (an MP3, the clip)."""

    name: str
    chapters: tuple[str, ...] = ()


@dataclass(frozen=True)
class AlbumSpec:
    """One album of the generated library.

    `title` is what the player shows (the folder name unless `json_title`); `folder` is the
    path under the library root; `episodes` the number of episodes; `author`, `narrator`
    and `aliases` (the book's names in the other language) go to ``album.json`` when set;
    `names` are the episode file stems, in order — or, for an album of `files` (files with
    chapter marks), the episode titles: each chapter's mark, a plain file's stem.
    """

    title: str
    folder: str
    episodes: int
    author: str = ""
    names: tuple[str, ...] = ()
    narrator: str = ""
    aliases: tuple[str, ...] = ()
    files: tuple[BookFile, ...] = ()


# (title, author, episodes or 0 for a seeded random count, layout, group folder)
# Layouts: "ji" 第01集 (+ subtitles), "hui" 第一回 (Chinese numerals), "num" 001,
# "chapter" Chapter 01, "dash" "01 - <title>", "part" Part 1, "ep" "<title> EP01".
_CURATED: list[tuple[str, str, int, str, str]] = [
    ("西游记", "吴承恩", 100, "ji", ""),
    ("三国演义", "罗贯中", 120, "hui", ""),
    ("水浒传", "施耐庵", 70, "ji", ""),
    ("水浒传少儿版", "", 20, "ji", ""),
    ("紅樓夢", "曹雪芹", 80, "hui", ""),
    ("三体", "刘慈欣", 30, "ji", ""),
    ("三体2", "刘慈欣", 32, "ji", ""),
    ("家", "巴金", 12, "ji", ""),
    ("活着", "余华", 8, "ji", ""),
    ("It", "Stephen King", 24, "chapter", ""),
    ("Us", "David Nicholls", 10, "chapter", ""),
    ("1984", "George Orwell", 23, "chapter", ""),
    ("Treasure Island", "Robert Louis Stevenson", 34, "chapter", ""),
    ("Sherlock Holmes", "Arthur Conan Doyle", 12, "dash", ""),
    ("Alice in Wonderland", "Lewis Carroll", 12, "chapter", ""),
    ("小王子", "圣埃克苏佩里", 27, "ji", ""),
    ("三侠五义", "石玉昆", 60, "hui", ""),
    ("单田芳 三侠五义", "单田芳", 110, "num", ""),
    ("袁阔成 三国演义", "袁阔成", 96, "num", ""),
    ("明朝那些事儿 第一部", "当年明月", 40, "ji", ""),
    ("明朝那些事儿 第二部", "当年明月", 38, "ji", ""),
    ("明朝那些事儿 第三部", "当年明月", 36, "ji", ""),
    ("平凡的世界", "路遥", 1, "ji", ""),
    ("Harry Potter and the Philosopher's Stone", "J. K. Rowling", 17, "chapter", ""),
    ("Harry Potter and the Chamber of Secrets", "J. K. Rowling", 18, "chapter", ""),
    ("The Old Man and the Sea", "Ernest Hemingway", 1, "part", ""),
    ("Aesop's Fables", "Aesop", 2, "dash", ""),
    ("Les Misérables", "Victor Hugo", 48, "part", ""),
    ("Winnie-the-Pooh", "A. A. Milne", 10, "chapter", ""),
    ("枪炮、病菌与钢铁", "贾雷德·戴蒙德", 20, "ji", ""),
    ("思考，快与慢", "丹尼尔·卡尼曼", 38, "ji", ""),
    ("射雕英雄传", "金庸", 40, "hui", "金庸"),
    ("神雕侠侣", "金庸", 40, "hui", "金庸"),
    ("倚天屠龙记", "金庸", 40, "hui", "金庸"),
    ("天龙八部", "金庸", 50, "hui", "金庸"),
    ("笑傲江湖", "金庸", 40, "hui", "金庸"),
    ("鹿鼎记", "金庸", 50, "hui", "金庸"),
    ("睡前故事", "", 120, "ep", ""),
]

_ZH_TITLES: list[tuple[str, str]] = [
    ("围城", "钱钟书"), ("骆驼祥子", "老舍"), ("四世同堂", "老舍"), ("茶馆", "老舍"),
    ("白鹿原", "陈忠实"), ("边城", "沈从文"), ("呐喊", "鲁迅"), ("朝花夕拾", "鲁迅"),
    ("彷徨", "鲁迅"), ("雷雨", "曹禺"), ("红高粱", "莫言"), ("蛙", "莫言"),
    ("生死疲劳", "莫言"), ("许三观卖血记", "余华"), ("兄弟", "余华"), ("文化苦旅", "余秋雨"),
    ("倾城之恋", "张爱玲"), ("金锁记", "张爱玲"), ("书剑恩仇录", "金庸"), ("碧血剑", "金庸"),
    ("雪山飞狐", "金庸"), ("飞狐外传", "金庸"), ("连城诀", "金庸"), ("侠客行", "金庸"),
    ("白马啸西风", "金庸"), ("鸳鸯刀", "金庸"), ("越女剑", "金庸"), ("多情剑客无情剑", "古龙"),
    ("楚留香传奇", "古龙"), ("陆小凤传奇", "古龙"), ("七种武器", "古龙"), ("萧十一郎", "古龙"),
    ("绝代双骄", "古龙"), ("流星蝴蝶剑", "古龙"), ("封神演义", "许仲琳"), ("聊斋志异", "蒲松龄"),
    ("儒林外史", "吴敬梓"), ("镜花缘", "李汝珍"), ("东周列国志", "冯梦龙"), ("隋唐演义", "褚人获"),
    ("说岳全传", "钱彩"), ("杨家将", ""), ("七侠五义", ""), ("包公案", ""), ("济公传", ""),
    ("隋唐英雄传", ""), ("万历十五年", "黄仁宇"), ("史记", "司马迁"), ("资治通鉴", "司马光"),
    ("论语", "孔子"), ("孟子", "孟子"), ("道德经", "老子"), ("庄子", "庄子"), ("孙子兵法", "孙武"),
    ("诗经", ""), ("唐诗三百首", "蘅塘退士"), ("宋词三百首", "朱孝臧"), ("古文观止", "吴楚材"),
    ("三字经", "王应麟"), ("弟子规", "李毓秀"), ("千字文", "周兴嗣"), ("百家姓", ""),
    ("世说新语", "刘义庆"), ("山海经", ""), ("搜神记", "干宝"), ("幼学琼林", "程登吉"),
    ("菜根谭", "洪应明"), ("围炉夜话", "王永彬"), ("人间词话", "王国维"), ("浮生六记", "沈复"),
    ("牡丹亭", "汤显祖"), ("西厢记", "王实甫"), ("桃花扇", "孔尚任"), ("长生殿", "洪昇"),
    ("窦娥冤", "关汉卿"), ("鬼吹灯", "天下霸唱"), ("盗墓笔记", "南派三叔"), ("藏地密码", "何马"),
    ("黄金时代", "王小波"), ("沉默的大多数", "王小波"), ("穆斯林的葬礼", "霍达"),
    ("尘埃落定", "阿来"), ("长恨歌", "王安忆"), ("芙蓉镇", "古华"), ("秦腔", "贾平凹"),
    ("推拿", "毕飞宇"), ("额尔古纳河右岸", "迟子建"), ("繁花", "金宇澄"), ("人生", "路遥"),
    ("城南旧事", "林海音"), ("草房子", "曹文轩"), ("青铜葵花", "曹文轩"), ("小兵张嘎", "徐光耀"),
    ("闪闪的红星", "李心田"), ("鸡毛信", "华山"), ("大林和小林", "张天翼"),
    ("宝葫芦的秘密", "张天翼"), ("小猪唏哩呼噜", "孙幼军"), ("皮皮鲁传", "郑渊洁"),
    ("舒克和贝塔", "郑渊洁"), ("淘气包马小跳", "杨红樱"), ("笑猫日记", "杨红樱"),
    ("米小圈上学记", "北猫"), ("窗边的小豆豆", "黑柳彻子"), ("安徒生童话", "安徒生"),
    ("格林童话", "格林兄弟"), ("伊索寓言", "伊索"), ("一千零一夜", ""), ("木偶奇遇记", "科洛迪"),
    ("爱丽丝梦游仙境", "刘易斯·卡罗尔"), ("绿野仙踪", "鲍姆"), ("彼得潘", "巴里"),
    ("柳林风声", "格雷厄姆"), ("夏洛的网", "怀特"), ("秘密花园", "伯内特"),
    ("海底两万里", "凡尔纳"), ("八十天环游地球", "凡尔纳"), ("神秘岛", "凡尔纳"),
    ("鲁滨逊漂流记", "笛福"), ("格列佛游记", "斯威夫特"), ("汤姆索亚历险记", "马克·吐温"),
    ("金银岛", "史蒂文森"), ("基督山伯爵", "大仲马"), ("三个火枪手", "大仲马"),
    ("悲惨世界", "雨果"), ("巴黎圣母院", "雨果"), ("简爱", "夏洛蒂·勃朗特"),
    ("呼啸山庄", "艾米莉·勃朗特"), ("傲慢与偏见", "简·奥斯汀"), ("飘", "米切尔"),
    ("战争与和平", "托尔斯泰"), ("安娜卡列尼娜", "托尔斯泰"), ("复活", "托尔斯泰"),
    ("罪与罚", "陀思妥耶夫斯基"), ("钢铁是怎样炼成的", "奥斯特洛夫斯基"), ("老人与海", "海明威"),
    ("百年孤独", "马尔克斯"), ("追风筝的人", "胡赛尼"), ("解忧杂货店", "东野圭吾"),
    ("白夜行", "东野圭吾"), ("嫌疑人X的献身", "东野圭吾"), ("挪威的森林", "村上春树"),
    ("人间失格", "太宰治"), ("福尔摩斯探案集", "柯南·道尔"), ("东方快车谋杀案", "阿加莎·克里斯蒂"),
    ("无人生还", "阿加莎·克里斯蒂"), ("哈利波特与魔法石", "J.K.罗琳"), ("时间简史", "霍金"),
    ("人类简史", "赫拉利"), ("未来简史", "赫拉利"), ("自私的基因", "道金斯"), ("乌合之众", "勒庞"),
    ("苏菲的世界", "乔斯坦·贾德"), ("被讨厌的勇气", "岸见一郎"), ("非暴力沟通", "卢森堡"),
    ("穷查理宝典", "芒格"), ("小狗钱钱", "博多·舍费尔"), ("富爸爸穷爸爸", "清崎"),
    ("刻意练习", "艾利克森"), ("蛤蟆先生去看心理医生", "德博拉"), ("十万个为什么", ""),
    ("昆虫记", "法布尔"), ("万物简史", "布莱森"), ("上下五千年", "林汉达"),
    ("半小时漫画中国史", "陈磊"), ("如果历史是一群喵", "肥志"), ("可怕的科学", ""),
    ("凯叔讲故事", "凯叔"), ("郭德纲相声精选", "郭德纲"), ("晚安故事", ""),
    ("中国神话故事", ""), ("成语故事", ""), ("寓言故事", ""), ("民间故事", ""),
    ("二十四孝", ""), ("孔子的故事", ""), ("岳飞传", ""), ("西汉演义", ""), ("东汉演义", ""),
    ("三言二拍", "冯梦龙"), ("官场现形记", "李宝嘉"), ("老残游记", "刘鹗"), ("孽海花", "曾朴"),
    ("二十年目睹之怪现状", "吴趼人"), ("海上花列传", "韩邦庆"), ("儿女英雄传", "文康"),
    ("红岩", "罗广斌"), ("林海雪原", "曲波"), ("青春之歌", "杨沫"), ("保卫延安", "杜鹏程"),
    ("创业史", "柳青"), ("暴风骤雨", "周立波"), ("子夜", "茅盾"), ("林家铺子", "茅盾"),
    ("春", "巴金"), ("秋", "巴金"), ("寒夜", "巴金"), ("死水微澜", "李劼人"), ("呼兰河传", "萧红"),
    ("生死场", "萧红"), ("荷塘月色", "朱自清"), ("背影", "朱自清"), ("雅舍小品", "梁实秋"),
    ("干校六记", "杨绛"), ("我们仨", "杨绛"), ("撒哈拉的故事", "三毛"), ("平凡的世界 第二部", "路遥"),
    ("明朝那些事儿 第四部", "当年明月"), ("狼图腾", "姜戎"), ("球状闪电", "刘慈欣"),
    ("流浪地球", "刘慈欣"), ("乡村教师", "刘慈欣"), ("北京折叠", "郝景芳"), ("三体3", "刘慈欣"),
]  # fmt: skip

_EN_TITLES: list[tuple[str, str]] = [
    ("Pride and Prejudice", "Jane Austen"), ("Emma", "Jane Austen"),
    ("Sense and Sensibility", "Jane Austen"), ("Persuasion", "Jane Austen"),
    ("Dracula", "Bram Stoker"), ("Frankenstein", "Mary Shelley"), ("Moby Dick", "Herman Melville"),
    ("The Odyssey", "Homer"), ("The Iliad", "Homer"), ("Beowulf", ""),
    ("Hamlet", "William Shakespeare"), ("Macbeth", "William Shakespeare"),
    ("Romeo and Juliet", "William Shakespeare"), ("The Tempest", "William Shakespeare"),
    ("Jane Eyre", "Charlotte Bronte"), ("Wuthering Heights", "Emily Bronte"),
    ("Great Expectations", "Charles Dickens"), ("Oliver Twist", "Charles Dickens"),
    ("A Christmas Carol", "Charles Dickens"), ("David Copperfield", "Charles Dickens"),
    ("A Tale of Two Cities", "Charles Dickens"), ("Little Women", "Louisa May Alcott"),
    ("Anne of Green Gables", "L. M. Montgomery"), ("Black Beauty", "Anna Sewell"),
    ("The Secret Garden", "Frances Hodgson Burnett"), ("Peter Pan", "J. M. Barrie"),
    ("The Wind in the Willows", "Kenneth Grahame"), ("The Jungle Book", "Rudyard Kipling"),
    ("Just So Stories", "Rudyard Kipling"), ("Heidi", "Johanna Spyri"),
    ("Pinocchio", "Carlo Collodi"), ("The Wonderful Wizard of Oz", "L. Frank Baum"),
    ("Gulliver's Travels", "Jonathan Swift"), ("Robinson Crusoe", "Daniel Defoe"),
    ("Around the World in Eighty Days", "Jules Verne"),
    ("Twenty Thousand Leagues Under the Sea", "Jules Verne"),
    ("The Time Machine", "H. G. Wells"), ("The War of the Worlds", "H. G. Wells"),
    ("The Invisible Man", "H. G. Wells"), ("Dr Jekyll and Mr Hyde", "Robert Louis Stevenson"),
    ("Kidnapped", "Robert Louis Stevenson"), ("The Call of the Wild", "Jack London"),
    ("White Fang", "Jack London"), ("The Adventures of Tom Sawyer", "Mark Twain"),
    ("Adventures of Huckleberry Finn", "Mark Twain"), ("The Picture of Dorian Gray", "Oscar Wilde"),
    ("The Importance of Being Earnest", "Oscar Wilde"), ("Middlemarch", "George Eliot"),
    ("Anna Karenina", "Leo Tolstoy"), ("War and Peace", "Leo Tolstoy"),
    ("Crime and Punishment", "Fyodor Dostoevsky"), ("The Count of Monte Cristo", "Alexandre Dumas"),
    ("The Three Musketeers", "Alexandre Dumas"), ("Don Quixote", "Miguel de Cervantes"),
    ("The Great Gatsby", "F. Scott Fitzgerald"), ("Dubliners", "James Joyce"),
    ("The Hound of the Baskervilles", "Arthur Conan Doyle"), ("A Study in Scarlet", "Arthur Conan Doyle"),
    ("Grimms' Fairy Tales", "Brothers Grimm"), ("The Little Prince", "Antoine de Saint-Exupery"),
    ("The Art of War", "Sun Tzu"), ("Meditations", "Marcus Aurelius"), ("The Prince", "Niccolo Machiavelli"),
    ("Walden", "Henry David Thoreau"), ("The Scarlet Letter", "Nathaniel Hawthorne"),
    ("Uncle Tom's Cabin", "Harriet Beecher Stowe"), ("Animal Farm", "George Orwell"),
    ("Brave New World", "Aldous Huxley"), ("The Hobbit", "J. R. R. Tolkien"), ("Dune", "Frank Herbert"),
    ("The Three-Body Problem", "Liu Cixin"), ("Ender's Game", "Orson Scott Card"),
    ("Charlotte's Web", "E. B. White"), ("Matilda", "Roald Dahl"),
    ("Charlie and the Chocolate Factory", "Roald Dahl"), ("The BFG", "Roald Dahl"),
    ("Bedtime Stories", ""), ("Short Stories for Kids", ""), ("The Railway Children", "E. Nesbit"),
]  # fmt: skip

# What some album.json files say besides the author: the narrator, and the names the book
# has in the other language (a listener of an English box says "Journey to the West").
_INFO: dict[str, dict[str, object]] = {
    "西游记": {"narrator": "王刚", "aliases": ("Journey to the West",)},
    "三国演义": {"narrator": "孙岩", "aliases": ("Romance of the Three Kingdoms",)},
    "水浒传": {"aliases": ("Water Margin",)},
    "紅樓夢": {"narrator": "王蒙", "aliases": ("Dream of the Red Chamber",)},
    "三体": {"narrator": "冯雪松"},
    "活着": {"narrator": "余华", "aliases": ("To Live",)},
    "围城": {"aliases": ("Fortress Besieged",)},
    "骆驼祥子": {"aliases": ("Rickshaw Boy",)},
    "小王子": {"narrator": "王凯"},
    "Treasure Island": {"narrator": "Adrian Praetzellis"},
    "Sherlock Holmes": {"narrator": "Stephen Fry"},
    "It": {"narrator": "Steven Weber"},
    "Dracula": {"narrator": "Greg Wagland", "aliases": ("德古拉",)},
    "Frankenstein": {"aliases": ("弗兰肯斯坦",)},
    "Moby Dick": {"aliases": ("白鲸记",)},
    "Dune": {"narrator": "Scott Brick", "aliases": ("沙丘",)},
    "The Hobbit": {"narrator": "Andy Serkis", "aliases": ("霍比特人",)},
    "Winnie-the-Pooh": {"aliases": ("小熊维尼",)},
}  # fmt: skip

# Chapter names for the first episodes of a few albums (as in the novels).
_SUBTITLES = {
    "西游记": ["猴王出世", "拜师学艺", "大闹龙宫", "官封弼马温", "大闹天宫", "观音赴会",
              "八卦炉中逃大圣", "五行山下定心猿", "唐僧出世", "魏征斩龙"],
    "三国演义": ["宴桃园豪杰三结义", "张翼德怒鞭督邮", "议温明董卓叱丁原", "废汉帝陈留践位",
               "发矫诏诸镇应曹公"],
    "水浒传": ["王教头私走延安府", "史大郎夜走华阴县", "鲁提辖拳打镇关西"],
    "三体": ["科学边界", "射手和农场主", "疯狂年代"],
}  # fmt: skip

_CN_DIGITS = "零一二三四五六七八九"

# The twelve double hours, each as its first and second hour (初, 正): the hours of the
# book's one day, from 巳正 (ten in the morning) to 巳初 of the next.
_SHICHEN = "子丑寅卯辰巳午未申酉戌亥"
_CHANGAN_HOURS = [
    f"{_SHICHEN[(5 + (i + 1) // 2) % 12]}{'正' if i % 2 == 0 else '初'}" for i in range(24)
]


def chinese_numeral(n: int) -> str:
    """1..9999 as a Chinese numeral (12 -> 十二, 105 -> 一百零五, 120 -> 一百二十)."""
    if not 0 < n < 10000:
        raise ValueError(f"out of range: {n}")
    if n < 10:
        return _CN_DIGITS[n]
    if n < 20:
        return "十" + (_CN_DIGITS[n % 10] if n % 10 else "")
    text, zero = "", False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // value % 10
        if digit:
            if zero and text:
                text += "零"
            text += _CN_DIGITS[digit] + unit
            zero = False
        elif text:
            zero = True
    return text


def _names(title: str, count: int, layout: str) -> tuple[str, ...]:
    width = 3 if count > 100 else 2  # 西游记/第01集 … 第100集, as in the README
    subtitles = _SUBTITLES.get(title, [])
    names = []
    for n in range(1, count + 1):
        sub = subtitles[n - 1] if n <= len(subtitles) else ""
        if layout == "ji":
            name = f"第{n:0{width}d}集" + (f" {sub}" if sub else "")
        elif layout == "hui":
            name = f"第{chinese_numeral(n)}回" + (f" {sub}" if sub else "")
        elif layout == "num":
            name = f"{n:03d}"
        elif layout == "chapter":
            name = f"Chapter {n:0{width}d}"
        elif layout == "dash":
            name = f"{n:0{width}d} - {title}"
        elif layout == "part":
            name = f"Part {n}"
        else:  # "ep"
            name = f"{title} EP{n:0{width}d}"
        names.append(name)
    return tuple(names)


def _album_specs() -> list[AlbumSpec]:
    rng = random.Random(20261201)
    specs: list[AlbumSpec] = []
    seen: set[str] = set()

    def add(title: str, author: str, count: int, layout: str, group: str) -> None:
        if title in seen:
            raise ValueError(f"duplicate title {title!r}")
        seen.add(title)
        if not count:
            # Mostly short books, some long series: 1..120 episodes.
            count = rng.choice([rng.randint(1, 12), rng.randint(5, 40), rng.randint(20, 120)])
        folder = f"{group}/{title}" if group else title
        info = _INFO.get(title, {})
        specs.append(
            AlbumSpec(
                title,
                folder,
                count,
                author,
                _names(title, count, layout),
                narrator=str(info.get("narrator", "")),
                aliases=tuple(info.get("aliases", ())),  # type: ignore[arg-type]
            )
        )

    for title, author, count, layout, group in _CURATED:
        add(title, author, count, layout, group)
    zh_layouts = ["ji", "ji", "hui", "num"]
    for i, (title, author) in enumerate(_ZH_TITLES):
        add(title, author, 0, zh_layouts[i % len(zh_layouts)], "")
    en_layouts = ["chapter", "dash", "part", "chapter"]
    for i, (title, author) in enumerate(_EN_TITLES):
        add(title, author, 0, en_layouts[i % len(en_layouts)], "")
    return specs


def _book_specs() -> list[AlbumSpec]:
    """The albums whose episodes are chapter marks inside files (see the module's text)."""
    martian = (
        BookFile("The Martian - Part 1.m4b", tuple(f"Sol {n}" for n in range(6, 19))),
        BookFile("The Martian - Part 2.mp3"),
    )
    books = [
        ("Project Hail Mary", "Andy Weir", ("挽救计划",),
         (BookFile("Project Hail Mary.m4b", tuple(f"Chapter {n}" for n in range(1, 31))),)),
        ("The Martian", "Andy Weir", ("火星救援",), martian),
        ("长安十二时辰", "马伯庸", ("The Longest Day in Chang'an",),
         (BookFile("长安十二时辰.m4b", tuple(f"第{chinese_numeral(n)}章 {hour}"
                                             for n, hour in enumerate(_CHANGAN_HOURS, 1))),)),
    ]  # fmt: skip
    specs = []
    for title, author, aliases, files in books:
        names = tuple(n for f in files for n in (f.chapters or (f.name.rsplit(".", 1)[0],)))
        specs.append(AlbumSpec(title, title, len(names), author, names, aliases=aliases,
                               files=files))  # fmt: skip
    return specs


BOOKS: list[AlbumSpec] = _book_specs()
"""The albums of chapter-marked files (their episodes are chapters)."""

ALBUMS: list[AlbumSpec] = _album_specs() + BOOKS
"""Every album of the generated library, in a fixed order."""

BY_TITLE: dict[str, AlbumSpec] = {a.title: a for a in ALBUMS}
if len(BY_TITLE) != len(ALBUMS):
    raise ValueError("duplicate album titles")


def encode_clip(path: Path, seconds: float, *, sample_rate: int = 16000) -> Path:
    """A mono MP3 of `seconds` (a quiet tone, 16 kbit/s) written with PyAV; returns `path`."""
    import av
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    block = 1152
    with av.open(str(tmp), "w", format="mp3") as out:
        stream = out.add_stream("libmp3lame", rate=sample_rate, layout="mono")
        stream.bit_rate = 16000
        total = int(sample_rate * seconds)
        t = np.arange(block) / sample_rate
        pts = 0
        for start in range(0, total, block):
            n = min(block, total - start)
            freq = 220.0 + 20.0 * ((start // sample_rate) % 10)
            wave = (0.05 * np.sin(2 * np.pi * freq * (t[:n] + start / sample_rate))).astype(
                np.float32
            )
            frame = av.AudioFrame.from_ndarray(wave[None, :], format="fltp", layout="mono")
            frame.sample_rate = sample_rate
            frame.pts = pts
            pts += n
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    os.replace(tmp, path)
    return path


def chapter_book(
    path: Path, titles: tuple[str, ...], seconds: float, *, sample_rate: int = 16000
) -> Path:
    """An M4B (MP4 chapter list, written by PyAV's `OutputContainer.set_chapters`) of
    `len(titles)` chapters of `seconds` each, titled `titles`: a quiet 250 Hz tone (a
    whole number of periods in every 1024-sample AAC frame) encoded for two seconds at
    6 kbit/s, its packets muxed again and again up to the length. Returns `path`."""
    from fractions import Fraction

    import av
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    frame_size = 1024
    with av.open(str(tmp), "w", format="ipod") as out:
        stream = out.add_stream("aac", rate=sample_rate, layout="mono")
        stream.bit_rate = 6000
        out.set_chapters(
            [
                {"id": i + 1, "start": round(i * seconds * 1000),
                 "end": round((i + 1) * seconds * 1000), "time_base": Fraction(1, 1000),
                 "metadata": {"title": title}}
                for i, title in enumerate(titles)
            ]
        )  # fmt: skip
        t = np.arange(sample_rate * 2) / sample_rate
        wave = (0.05 * np.sin(2 * np.pi * 250.0 * t)).astype(np.float32)
        packets, pts = [], 0
        for start in range(0, wave.size, frame_size):
            frame = av.AudioFrame.from_ndarray(
                np.ascontiguousarray(wave[None, start : start + frame_size]),
                format="fltp",
                layout="mono",
            )
            frame.sample_rate, frame.pts = sample_rate, pts
            pts += frame.samples
            packets += [bytes(p) for p in stream.encode(frame)]
        packets = [p for p in packets if p][4:]  # past the encoder's start-up
        for index in range(math.ceil(len(titles) * seconds * sample_rate / frame_size)):
            packet = av.Packet(packets[index % len(packets)])
            packet.stream = stream
            packet.pts = packet.dts = index * frame_size
            packet.duration = frame_size
            packet.time_base = Fraction(1, sample_rate)
            out.mux(packet)
    os.replace(tmp, path)
    return path


def _place(clip: Path, target: Path) -> None:
    try:
        os.link(clip, target)
    except OSError:
        shutil.copyfile(clip, target)


def build_library(
    root: Path, *, clip_seconds: float = 2.0, clip: Path | None = None, albums=None
) -> Path:
    """Write the library under `root` (created; must not hold another library); returns it.

    `clip` is an existing MP3 (of `clip_seconds`) to link as every episode; without it one
    of `clip_seconds` is encoded into ``root/.clip.mp3`` (a dot file: the scanner skips
    it). The chapters of the albums of `BOOKS` are `clip_seconds` long each
    (`chapter_book`); their plain files are the clip.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if clip is None:
        clip = encode_clip(root / ".clip.mp3", clip_seconds)
    for spec in ALBUMS if albums is None else albums:
        folder = root / spec.folder
        folder.mkdir(parents=True, exist_ok=True)
        for book in spec.files:
            if book.chapters:
                chapter_book(folder / book.name, book.chapters, clip_seconds)
            else:
                _place(clip, folder / book.name)
        for name in () if spec.files else spec.names:
            _place(clip, folder / f"{name}.mp3")
        info: dict[str, object] = {"author": spec.author} if spec.author else {}
        if spec.narrator:
            info["narrator"] = spec.narrator
        if spec.aliases:
            info["aliases"] = list(spec.aliases)
        if info:
            (folder / "album.json").write_text(
                json.dumps(info, ensure_ascii=False), encoding="utf-8"
            )
    return root


def cache_key(clip_seconds: float = CLIP_SECONDS) -> str:
    """The cached library's folder name: version, clip length and the album list."""
    digest = hashlib.sha1(
        json.dumps([VERSION, clip_seconds, [(a.folder, a.names, a.author, a.narrator, a.aliases,
                                             [(f.name, f.chapters) for f in a.files])
                                            for a in ALBUMS]],
                   ensure_ascii=False).encode()
    ).hexdigest()[:10]  # fmt: skip
    return f"library-v{VERSION}-{digest}"


def cached_library(cache_dir: Path | None = None, *, clip_seconds: float = CLIP_SECONDS) -> Path:
    """The library under `cache_dir` (default ``.state/bench``), built once per cache key.

    Built in a temporary folder and renamed into place, so a half-built library is never
    used; an older version's folder is left for the user to delete.
    """
    cache_dir = Path(cache_dir or ROOT / ".state" / "bench")
    target = cache_dir / cache_key(clip_seconds)
    if (target / ".complete").is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    clip = cache_dir / f"clip-v{VERSION}-{clip_seconds:g}s.mp3"
    if not clip.is_file():
        encode_clip(clip, clip_seconds)
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=cache_dir))
    try:
        build_library(work, clip=clip, clip_seconds=clip_seconds)
        (work / ".complete").write_text(VERSION, encoding="utf-8")
        try:
            work.rename(target)
        except OSError:
            if not (target / ".complete").is_file():
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return target


def episode_total(albums=None) -> int:
    """Episodes in the library (all albums unless given)."""
    return sum(a.episodes for a in (ALBUMS if albums is None else albums))


if __name__ == "__main__":
    import time

    started = time.perf_counter()
    path = cached_library()
    print(
        f"{path}: {len(ALBUMS)} albums, {episode_total()} episodes "
        f"({time.perf_counter() - started:.1f} s)"
    )
