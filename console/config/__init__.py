"""The configuration: one commented YAML file, found, merged over the packaged default and checked."""
