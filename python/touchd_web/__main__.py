import sys

from touchd_web import main

sys.exit(main())
