"""The memories domain: writing them (`writing`: remember, merge, supersede, forget), reading them back
(`views`), linking them (`links`), turning conversations into them (`ingest`, `extraction`), moving them
to a new embedder (`reembedding`), export and import (`portability`), and the language mix that decides
the multilingual model (`language_mix`). It may use `reading` and `recall`, never `traits`."""
