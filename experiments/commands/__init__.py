"""One module per `packbench` subcommand, each with `add_arguments(parser)` and `main(args) -> int`."""
