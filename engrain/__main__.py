from engrain.server.entry import main

main()
