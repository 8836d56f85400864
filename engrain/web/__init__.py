"""The local page (`engrain ui`, and `/ui` of the HTTP server): what engrain knows about the user, shown to the
user, with the same actions the tools offer. It receives the services it uses, like tools and resources do;
every action goes through them (same validation, same history). See docs/architecture.md."""
