import sys

from i18n.tool import main

sys.exit(main(sys.argv[1:]))
