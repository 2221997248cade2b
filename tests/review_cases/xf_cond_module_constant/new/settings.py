GROUP_KEY = "value"
