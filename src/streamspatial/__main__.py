from streamspatial.cli import main

main()
