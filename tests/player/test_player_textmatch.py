def test_title_inside_a_spoken_request_matches_below_other_matches() -> None:
    from player.textmatch import CONTAINED, match_score

    assert match_score("西游记第二集", "西游记") == CONTAINED
    assert match_score("음악 2화 재생", "음악") == CONTAINED
    assert match_score("play moby dick chapter 3", "Moby Dick") == CONTAINED
    assert match_score("西游记", "西游记") > CONTAINED
    assert match_score("我想听故事", "听") == 0  # one character is not a title match
