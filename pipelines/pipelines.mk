# pipelines: one fragment per framework; see pipelines/*.mk
