from engrain.server.cli import main

main()
