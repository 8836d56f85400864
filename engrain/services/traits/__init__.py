"""The traits domain: reflection (`reflection/`: when, what is asked, how an answer is applied), its prompts
and answer shapes (`prompts`, `answers`), the one place a trait is written (`trait_writer`), what the tools
and resources read (`views`), the user's review (`review`), and work handed to the calling model
(`host_tasks`). It may use `memories`, `recall` and `reading`."""
