"""packbench's experiment harness: configs, instance families, corpora, runner, reports."""
