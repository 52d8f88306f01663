# bench: the native ResNet50 v1.5 trainer (filled in by the bench work)
