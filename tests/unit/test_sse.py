from harness.client.sse import SSESplitter


def test_split_across_every_byte():
    stream = b'data: {"a":1}\n\ndata: {"b":2}\n\n: keep-alive\n\ndata: [DONE]\n\n'
    sp = SSESplitter()
    events = []
    for i in range(len(stream)):
        events += sp.feed(stream[i : i + 1])
    assert events == ['{"a":1}', '{"b":2}', "[DONE]"]
    assert sp.comments == 1
    assert not sp.pending


def test_crlf_and_multiline_and_other_fields():
    sp = SSESplitter()
    out = sp.feed(b"event: x\r\nid: 3\r\ndata: line1\r\ndata: line2\r\n\r\ndata:nospace\r\r\n")
    assert out == ["line1\nline2", "nospace"]


def test_cr_at_buffer_end_waits_for_lf():
    sp = SSESplitter()
    assert sp.feed(b"data: a\r") == []
    assert sp.feed(b"\n\r\n") == ["a"]


def test_flush_returns_unterminated_event():
    sp = SSESplitter()
    assert sp.feed(b"data: tail") == []
    assert sp.pending
    assert sp.flush() == ["tail"]
