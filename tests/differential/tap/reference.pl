#!/usr/bin/perl
# The reference reading of TAP streams: Perl's TAP::Parser (Debian's perl),
# the parser behind `prove`. For each file named on the command line, one
# JSON line: the counts and whether `prove` would call the stream good.
use strict;
use warnings;
use TAP::Parser;
use JSON::PP;

my $json = JSON::PP->new->canonical;
for my $file (@ARGV) {
    open my $fh, '<:raw', $file or die "$file: $!";
    local $/;
    my $tap = <$fh>;
    close $fh;
    my $parser = TAP::Parser->new({ tap => $tap });
    my ($bailed, $died, $plain) = (0, '', 0);
    # A YAML block TAP::Parser cannot read makes it warn or die: that is
    # the reference refusing the stream.
    local $SIG{__WARN__} = sub { $died ||= "warning: $_[0]" };
    eval {
        while (defined(my $result = $parser->next)) {
            $bailed = 1 if $result->is_bailout;
            # A pass with no directive: what vcc counts as passed.
            $plain++ if $result->is_test && $result->is_actual_ok && !$result->has_directive;
        }
        1;
    } or $died = "died: $@";
    my @errors = $parser->parse_errors;
    print $json->encode({
        file         => $file,
        tests_run    => $parser->tests_run + 0,
        passed       => scalar($parser->passed) + 0,
        actual_passed => scalar($parser->actual_passed) + 0,
        plain_passed => $plain,
        failed       => scalar($parser->failed) + 0,
        skipped      => scalar($parser->skipped) + 0,
        todo         => scalar($parser->todo) + 0,
        planned      => defined $parser->tests_planned ? $parser->tests_planned + 0 : undef,
        good_plan    => $parser->is_good_plan ? JSON::PP::true : JSON::PP::false,
        parse_errors => \@errors,
        bailed       => $bailed ? JSON::PP::true : JSON::PP::false,
        died         => $died,
        # What `prove` reports as a failed stream.
        has_problems => ($parser->has_problems || $bailed || $died) ? JSON::PP::true : JSON::PP::false,
    }), "\n";
}
