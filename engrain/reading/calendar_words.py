"""English names of days and months as regex alternations, shared by date reading (`dates.py`) and
tense and modality (`mood.py`: "by Friday" is a deadline)."""

# Abbreviations included ("Tue", "Sept"); "mar" and "may" are also words, so each user of these decides
# where a bare one counts.
MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|jun(?:e)?|jul(?:y)?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
WEEKDAYS = r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?"
# Full names only, where an abbreviation would match a word ("sat", "sun", "mar").
FULL_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
FULL_MONTHS = r"january|february|march|april|june|july|august|september|october|november|december"
