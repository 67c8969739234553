from pathlib import Path

from roster import Member, badge, load_members

EXPORT = Path(__file__).resolve().parent.parent / "exports" / "members.csv"


def test_reads_the_spreadsheet_export():
    members = load_members(EXPORT)
    assert [member.team for member in members] == ["Blue", "Red", "Blue", "Green"]


def test_accented_names_are_kept_as_written():
    names = [member.name for member in load_members(EXPORT)]
    assert names == ["José Álvarez", "Zoë Brandt", "Marta Nowak", "Łukasz Wójcik"]


def test_a_file_saved_without_a_byte_order_mark_reads_the_same(tmp_path):
    plain = tmp_path / "members.csv"
    plain.write_text("name,team\nZoë Brandt,Red\n", encoding="utf-8")
    assert load_members(plain) == [Member(name="Zoë Brandt", team="Red")]


def test_badge():
    assert badge(Member(name="Zoë Brandt", team="Red")) == "Zoë Brandt (Red)"
