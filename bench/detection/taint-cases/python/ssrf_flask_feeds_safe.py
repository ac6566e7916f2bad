# ax-bench: safe CWE-918 — Flask feed preview fetches entries of a constant list picked by index from the query string
import feedparser
import requests
from flask import Flask, jsonify, request

app = Flask(__name__)
FEEDS = [
    "https://blog.example.com/feed.xml",
    "https://status.example.com/history.rss",
    "https://changelog.example.com/atom.xml",
]


@app.route("/feeds/preview")
def preview_feeds():
    picks = [FEEDS[int(i)] for i in request.args.getlist("feed") if i.isdigit() and int(i) < len(FEEDS)]
    items = []
    for url in picks:
        resp = requests.get(url, timeout=5, headers={"User-Agent": "feed-preview/1.0"})  # ax-bench: sink
        if resp.status_code != 200:
            continue
        feed = feedparser.parse(resp.content)
        items.extend({"feed": url, "title": e.get("title"), "link": e.get("link")} for e in feed.entries[:10])
    return jsonify(items)
