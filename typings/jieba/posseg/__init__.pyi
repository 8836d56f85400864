class POSTokenizer:
    word_tag_tab: dict[str, str]

dt: POSTokenizer
