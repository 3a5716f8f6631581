/* tests.h - every unit test, by file. */
#ifndef TL_TESTS_H
#define TL_TESTS_H

#define TL_TEST_LIST(X) \
    X(calib_should_read_back_what_it_writes) \
    X(calib_should_refuse_damage_by_line) \
    X(calib_should_read_files_of_before_the_levels) \
    X(calib_should_read_files_of_before_the_copy_slot) \
    X(calib_should_give_files_of_before_the_bands_kind_transpose4s_sizes) \
    X(calib_should_call_two_slow_threads_disturbed) \
    X(dtype_should_name_and_size_every_type) \
    X(dtype_table_should_agree_with_itself) \
    X(dtype_should_format_shortest_values) \
    X(dtype_should_round_trip_half) \
    X(dtype_should_round_trip_bfloat) \
    X(dtype_should_print_the_shortest_text_of_each_type) \
    X(dtype_should_print_the_shortest_text_of_float64) \
    X(dtype_should_pad_whole_numbers_with_zeros) \
    X(dtype_should_parse_values_in_range) \
    X(desc_should_compute_reference_terms) \
    X(desc_should_compute_strides_for_layouts) \
    X(desc_should_name_layout_with_tie_rule) \
    X(desc_should_report_directml_problems) \
    X(desc_should_reject_overflow) \
    X(desc_should_compute_offsets) \
    X(desc_should_locate_elements_one_way) \
    X(desc_should_place_buffers_by_file_offset) \
    X(slab_reach_should_cover_what_the_slabs_read) \
    X(json_should_accept_both_spellings) \
    X(json_should_accept_every_key_form) \
    X(json_should_reject_each_error_with_key_path) \
    X(json_should_locate_malformed_json) \
    X(json_should_write_exact_integers) \
    X(classify_should_decide_known_overlaps) \
    X(classify_should_match_brute_force_oracle) \
    X(classify_should_name_two_indices_that_overlap) \
    X(classify_should_be_fast_on_huge_tensors) \
    X(classify_should_decide_fuzzer_case_in_few_steps) \
    X(fixes_should_offer_the_strides_meant) \
    X(find_should_match_brute_force_oracle) \
    X(find_should_match_oracle_with_tables_cut_short) \
    X(find_should_be_fast_on_huge_broadcast) \
    X(find_should_walk_dense_owners_in_logical_order) \
    X(find_should_answer_fuzzer_cases_in_few_steps) \
    X(find_should_stop_at_its_bound_with_the_first_owners) \
    X(npy_should_read_numpy_headers) \
    X(npy_should_reject_each_malformed_header) \
    X(npy_should_write_headers_that_read_back) \
    X(safetensors_should_read_tensors_in_file_order) \
    X(safetensors_should_reject_each_malformed_header) \
    X(safetensors_should_list_tensors_it_cannot_decode) \
    X(npz_should_read_what_the_zip_writer_writes) \
    X(shard_index_should_read_and_write_back) \
    X(reshard_should_place_and_name) \
    X(shards_should_match_their_index) \
    X(model_folder_should_name_its_files) \
    X(safetensors_should_report_overlaps_and_gaps) \
    X(sniff_should_take_the_strongest_bid) \
    X(file_should_never_read_past_a_truncation) \
    X(convert_should_round_trip_every_half_and_bfloat) \
    X(convert_should_round_floats_once) \
    X(convert_should_round_integers_to_floats_once) \
    X(convert_should_truncate_and_check_integer_ranges) \
    X(convert_should_report_float_overflow) \
    X(grouped_should_stream_what_it_stages) \
    X(padding_should_match_byte_oracle)

#define X(name) void name(void);
TL_TEST_LIST(X)
#undef X

#endif
