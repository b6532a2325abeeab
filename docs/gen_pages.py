"""Write the generated docs pages (mkdocs-gen-files runs this on every `mkdocs build`).

- `index.md`: README.md, its links made relative to docs/ (the front door is written once);
- `reference/settings.md`: every setting, from the Context fields.
"""

from pathlib import Path

import mkdocs_gen_files

from veriloop.cli.settings_reference import settings_reference

readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
with mkdocs_gen_files.open("index.md", "w") as page:
    page.write(readme.replace("](docs/", "]("))

with mkdocs_gen_files.open("reference/settings.md", "w") as page:
    page.write(settings_reference())
