GROUP_KEY = "key"
