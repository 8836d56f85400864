"""The recall domain: the one-statement search and its options (`search`), which query words carry the
meaning (`focus`), and the readings kept between calls (`refreshing`). It uses no other domain."""
