import sys
print("being written")
