"""A sphinx-gallery image scraper for the figures paretostab builds without pyplot.

paretostab's drawers never touch pyplot's global state: ``report.figures.front`` and
``paretostab.plot.stability_map_figure(...)`` are plain :class:`matplotlib.figure.Figure`
objects, which sphinx-gallery's matplotlib scraper (pyplot's open figures) does not see.
This one shows every such figure an example binds to a name, once, after the block that
made it.
"""

from __future__ import annotations

_SHOWN: dict[str, set[int]] = {}


def scrape_figures(block, block_vars, gallery_conf):
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    shown = _SHOWN.setdefault(block_vars["src_file"], set())
    paths = []
    for value in list(vars(block_vars["fake_main"]).values()):
        if (isinstance(value, Figure) and id(value) not in shown
                and value.canvas.manager is None):  # pyplot's own: the matplotlib scraper
            shown.add(id(value))
            path = next(block_vars["image_path_iterator"])
            value.savefig(path, dpi=80)
            paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])
