"""What the home holds and how it runs, for `engrain status` and engrain://status: the report (report.py) and
its summary for a person (summary.py)."""
