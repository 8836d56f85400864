"""Rules of the user model that both storage and services apply: pure formulas and the SQL
fragments that apply them to many rows. Imports nothing of engrain."""
